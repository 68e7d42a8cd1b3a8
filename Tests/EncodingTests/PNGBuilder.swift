/// Builds small PNG files for tests: stored (uncompressed) deflate, real CRCs.
enum PNGBuilder {
    /// colourType: 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA. `rows` are unfiltered sample bytes.
    static func make(
        width: Int, height: Int, bitDepth: UInt8, colourType: UInt8, rows: [[UInt8]], palette: [UInt8]? = nil,
        transparency: [UInt8]? = nil
    ) -> [UInt8] {
        var header: [UInt8] = []
        header += bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        header += [bitDepth, colourType, 0, 0, 0]
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        file += chunk("IHDR", header)
        if let palette { file += chunk("PLTE", palette) }
        if let transparency { file += chunk("tRNS", transparency) }
        file += chunk("IDAT", zlibStored(rows.flatMap { [0] + $0 }))
        file += chunk("IEND", [])
        return file
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
    }

    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        precondition(data.count < 65536)
        let length = UInt16(data.count)
        var stream: [UInt8] = [0x78, 0x01, 0x01, UInt8(length & 0xff), UInt8(length >> 8)]
        stream += [UInt8(~length & 0xff), UInt8(~length >> 8)]
        stream += data
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return stream + bigEndian(b << 16 | a)
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }
}
