import HLSModel
public import Foundation
public import HLS

/// `--record s3://BUCKET/PREFIX/`: a recording kept in object storage, as Agora's and Chime's cloud
/// recordings are. The recording's folders (`/<channel>/<start time>/[<rendition>/]`) are key
/// prefixes under PREFIX; each file is one `PutObject`, so an object is there whole or not at all,
/// and segments are put before the playlist that lists them, as on disk. Playlists are stored
/// `no-cache` (they change until the broadcast ends), media as immutable.
public struct S3RecordingStorage: RecordingStorage {
    private let store: S3Store
    /// `s3://BUCKET/PREFIX/`, for messages.
    public let address: String

    public init(location: PushDestination.S3Location) {
        store = S3Store(location: location)
        address = "s3://\(location.bucket)/\(location.prefix)"
    }

    public func makeFolder(_ folder: URL) throws {}

    public func write(_ bytes: [UInt8], as name: String, in folder: URL) throws {
        let file = MediaFileName(name)
        try store.put(
            Self.key(name, in: folder), bytes: bytes, contentType: file?.contentType ?? "application/octet-stream",
            cacheControl: file?.isPlaylist == false ? "public, max-age=31536000, immutable" : "no-cache",
            timeout: 15)
    }

    /// The key of `name` in `folder`, under the prefix: `demo/2026-11-24T07-05-09Z/720p/seg3.m4s`.
    static func key(_ name: String, in folder: URL) -> String {
        (folder.path.split(separator: "/").map(String.init) + [name]).joined(separator: "/")
    }
}
