// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    // Members of a module only where it is imported: no full Foundation (and ICU) through a dependency.
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "onair",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "onair", targets: ["onair"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // Without its default traits: "FullFoundation" (a form coder's DateFormatter) alone would
        // link full Foundation and ICU's 34 MB of data; "ConfigurationSupport" is not used.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavcodec libavformat libavutil libswscale libswresample",
            providers: [
                .apt(["libavcodec-dev", "libavformat-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"])
            ]
        ),
        .systemLibrary(
            name: "CX11",
            pkgConfig: "x11 xext xfixes xdamage",
            providers: [.apt(["libx11-dev", "libxext-dev", "libxfixes-dev", "libxdamage-dev"])]
        ),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        // Wayland screens: the ScreenCast portal over the session bus (sd-bus), its stream over PipeWire.
        .systemLibrary(name: "CSDBus", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(
            name: "CPipeWire", pkgConfig: "libpipewire-0.3", providers: [.apt(["libpipewire-0.3-dev"])]),
        // glibc's extensions: handing freed heap pages back to the system; a child process's pipes.
        .systemLibrary(name: "CGlibc"),
        // Threads, queues, signals, clocks, numbers as text: what every stage uses; no C library but glibc.
        .target(name: "Runtime", dependencies: ["CGlibc"], swiftSettings: swiftSettings),
        // The HLS model: timelines, playlists, file names, requests, ingest rules; no C library.
        .target(name: "HLSModel", dependencies: ["Runtime"], swiftSettings: swiftSettings),
        .target(name: "Media", dependencies: ["Runtime", "CFFmpeg"], swiftSettings: swiftSettings),
        .target(
            name: "Capture",
            dependencies: ["Media", "CX11", "CALSA", "CSDBus", "CPipeWire"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Encoding",
            dependencies: ["Media"],
            swiftSettings: swiftSettings
        ),
        // Publication: what the channel's timelines become (sinks, stores, recordings, rewind);
        // no libav, so the server and the origin link no FFmpeg.
        .target(
            name: "HLS",
            dependencies: ["HLSModel", "Runtime"],
            swiftSettings: swiftSettings
        ),
        // Packaging: encoded packets into fMP4/TS segments and parts (libavformat), handed to HLS's
        // sinks; a recording's MP4.
        .target(
            name: "Packaging",
            dependencies: ["HLS", "HLSModel", "Runtime", "Media"],
            swiftSettings: swiftSettings
        ),
        // The origin of `onair serve`: the channels its publishers push, their life, budgets and
        // eviction; no HTTP (the server's ingest routes call it) and no libav.
        .target(name: "Origin", dependencies: ["HLS", "HLSModel", "Runtime"], swiftSettings: swiftSettings),
        .target(
            name: "Server",
            dependencies: [
                "HLS", "Origin",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings,
            plugins: ["WebAssets"]
        ),
        // Publication sinks that send the stream away: HTTP ingest, S3-compatible storage, RTMP, SRT.
        .target(
            name: "Push",
            dependencies: [
                "HLS", "Media",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "WebEmbedder"),
        .plugin(name: "WebAssets", capability: .buildTool(), dependencies: ["WebEmbedder"]),
        .executableTarget(name: "BuildInfoWriter"),
        .plugin(name: "BuildInfo", capability: .buildTool(), dependencies: ["BuildInfoWriter"]),
        .target(
            name: "Publisher",
            dependencies: [
                "Media", "Capture", "Encoding", "Packaging", "HLS", "Origin", "Server", "Push",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "onair",
            dependencies: [
                "Publisher", "Origin", "Server", "Media", "Encoding", "Push",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings,
            // A release binary exports no symbols: nothing loads it as a library, and the table
            // of every Swift symbol would be 4 MB of the package.
            linkerSettings: [.unsafeFlags(["-Xlinker", "--no-export-dynamic"], .when(configuration: .release))],
            plugins: ["BuildInfo"]
        ),
        // libFuzzer over request and playlist parsing: scripts/fuzz.sh; without it, a corpus replayer.
        .target(name: "FuzzDriver", path: "Fuzz/Driver", swiftSettings: swiftSettings),
        .executableTarget(
            name: "RequestFuzzer", dependencies: ["HLSModel", "FuzzDriver"], path: "Fuzz/RequestFuzzer",
            swiftSettings: swiftSettings),
        // libFuzzer over an origin's ingest: sequences of pushed playlists and media (scripts/fuzz.sh ingest).
        .executableTarget(
            name: "IngestFuzzer", dependencies: ["HLSModel", "FuzzDriver"], path: "Fuzz/IngestFuzzer",
            swiftSettings: swiftSettings),
        .testTarget(name: "RuntimeTests", dependencies: ["Runtime"], swiftSettings: swiftSettings),
        .testTarget(name: "HLSModelTests", dependencies: ["HLSModel"], swiftSettings: swiftSettings),
        .testTarget(name: "HLSTests", dependencies: ["HLS", "HLSModel"], swiftSettings: swiftSettings),
        .testTarget(
            name: "PackagingTests", dependencies: ["Packaging", "HLS", "HLSModel", "Media"],
            swiftSettings: swiftSettings),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "Media"], swiftSettings: swiftSettings),
        .testTarget(name: "MediaTests", dependencies: ["Media"], swiftSettings: swiftSettings),
        .testTarget(name: "EncodingTests", dependencies: ["Encoding", "Media"], swiftSettings: swiftSettings),
        .testTarget(name: "PushTests", dependencies: ["Push", "HLS", "Media"], swiftSettings: swiftSettings),
        .testTarget(name: "OriginTests", dependencies: ["Origin", "HLS", "HLSModel"], swiftSettings: swiftSettings),
        .testTarget(name: "ServerTests", dependencies: ["Server", "Origin", "HLS"], swiftSettings: swiftSettings),
        .testTarget(
            name: "PublisherTests",
            dependencies: [
                "Publisher", "Media", "Capture", "Encoding", "HLS", "Push",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(name: "OnairTests", dependencies: ["onair"], swiftSettings: swiftSettings),
    ]
)
