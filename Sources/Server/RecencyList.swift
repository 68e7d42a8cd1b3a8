/// Values by key in the order they were last used, with their sizes added up: looking one up,
/// putting one in and taking out the least recently used are each O(1) (a dictionary over a
/// doubly linked list kept in an array, its free slots reused).
struct RecencyList<Key: Hashable, Value> {
    private struct Node {
        var key: Key
        var value: Value
        var size: Int
        var older: Int?
        var newer: Int?
    }

    private var nodes: [Node?] = []
    private var free: [Int] = []
    private var index: [Key: Int] = [:]
    private var newest: Int?
    private var oldest: Int?
    /// The sizes of the values held, added up.
    private(set) var bytes = 0

    var count: Int { index.count }

    /// The value for `key`, now the most recently used; nil when there is none.
    mutating func use(_ key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        unlink(slot)
        link(slot)
        return nodes[slot]!.value
    }

    /// Puts `value` in for `key` (replacing what was there) as the most recently used.
    mutating func insert(_ value: Value, for key: Key, size: Int) {
        if let slot = index[key] {
            bytes += size - nodes[slot]!.size
            nodes[slot]!.value = value
            nodes[slot]!.size = size
            unlink(slot)
            link(slot)
            return
        }
        let node = Node(key: key, value: value, size: size)
        let slot: Int
        if let reused = free.popLast() {
            nodes[reused] = node
            slot = reused
        } else {
            nodes.append(node)
            slot = nodes.count - 1
        }
        index[key] = slot
        bytes += size
        link(slot)
    }

    /// Takes out the least recently used value; false when there is none.
    @discardableResult mutating func removeLeastRecent() -> Bool {
        guard let slot = oldest, let node = nodes[slot] else { return false }
        unlink(slot)
        index[node.key] = nil
        bytes -= node.size
        nodes[slot] = nil
        free.append(slot)
        return true
    }

    /// The keys from the most to the least recently used.
    var keys: [Key] {
        var keys: [Key] = []
        var slot = newest
        while let current = slot, let node = nodes[current] {
            keys.append(node.key)
            slot = node.older
        }
        return keys
    }

    private mutating func link(_ slot: Int) {
        nodes[slot]!.older = newest
        nodes[slot]!.newer = nil
        if let newest { nodes[newest]!.newer = slot }
        newest = slot
        if oldest == nil { oldest = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let node = nodes[slot]!
        if let older = node.older { nodes[older]!.newer = node.newer } else { oldest = node.newer }
        if let newer = node.newer { nodes[newer]!.older = node.older } else { newest = node.older }
        nodes[slot]!.older = nil
        nodes[slot]!.newer = nil
    }
}
