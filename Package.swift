// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "briefcase",
    // Apple systems (ARCHITECTURE.md, "Known limits"): Synchronization's Mutex and typed throws need these.
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        // What a user links first: briefcases in Swift's own terms — String names, typed values,
        // Codable rows, edits recorded as pending changes (Spec/records-api.md).
        .library(name: "BriefcaseRecords", targets: ["BriefcaseRecords"]),
        // The codec under it: Bin2 streams, DABRC600 single-file briefcases, folders, the value
        // model, code pages, validation.
        .library(name: "BriefcaseKit", targets: ["BriefcaseKit"]),
        // What changed between two briefcases: typed differences (`briefcase diff`).
        .library(name: "BriefcaseDiff", targets: ["BriefcaseDiff"]),
        // Changes across copies: pending changes folded into the stored rows (`briefcase fold`).
        .library(name: "BriefcaseMerge", targets: ["BriefcaseMerge"]),
        // The lossless JSON document of a briefcase (reader and streaming writer).
        .library(name: "BriefcaseJSON", targets: ["BriefcaseJSON"]),
        // Briefcases as SQLite databases and back, edits as pending changes (Spec/sqlite-mapping.md).
        .library(name: "BriefcaseSQLite", targets: ["BriefcaseSQLite"]),
        // Briefcase ↔ datastore snapshot document mapping (Spec/datastore-mapping.md).
        .library(name: "BriefcaseDatastore", targets: ["BriefcaseDatastore"]),
        // The Dropbox Datastore data model and JSON wire format (snapshots, deltas, sizes).
        .library(name: "DatastoreKit", targets: ["DatastoreKit"]),
        // Strict JSON: parser, writer, paths, base64, UTF-8 validation (no briefcase in it).
        .library(name: "JSONCore", targets: ["JSONCore"]),
        .executable(name: "briefcase", targets: ["briefcase"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // `swift package generate-documentation` (Scripts/docs.sh): a command plugin, linked into nothing.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(name: "JSONCore"),
        .target(name: "BriefcaseKit", dependencies: ["JSONCore", "CZlib", "CSystemShims"],
                linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux])),
                                 .linkedLibrary("iconv", .when(platforms: [.macOS, .iOS]))]),  // Darwin's iconv is a library of its own
        // The system's zlib (gzip in and out), the way ZIPFoundation links it.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["libz-dev"]), .brew(["zlib"])]),
        .target(name: "BriefcaseJSON", dependencies: ["JSONCore", "BriefcaseKit", "CSystemShims"]),
        .target(name: "BriefcaseRecords", dependencies: ["BriefcaseKit"]),
        .target(name: "BriefcaseDiff", dependencies: ["BriefcaseKit"]),
        .target(name: "BriefcaseMerge", dependencies: ["BriefcaseKit", "DatastoreKit", "JSONCore"]),
        .target(name: "DatastoreKit", dependencies: ["JSONCore"]),
        .target(name: "BriefcaseDatastore", dependencies: ["JSONCore", "BriefcaseKit", "BriefcaseJSON", "DatastoreKit"]),
        // The system's SQLite (libsqlite3), the way CZlib links zlib (Spec/sqlite-mapping.md §1).
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .target(name: "BriefcaseSQLite", dependencies: ["JSONCore", "BriefcaseKit", "BriefcaseJSON", "CSQLite", "CZlib"]),
        // Small C helpers: system calls Swift's Glibc module does not expose (renameat2), and the
        // SIMD scan that finds a JSON array's items for parsing them on several threads.
        .target(name: "CSystemShims"),
        .executableTarget(
            name: "briefcase",
            dependencies: [
                "JSONCore", "BriefcaseKit", "BriefcaseJSON", "BriefcaseDatastore", "BriefcaseSQLite", "BriefcaseDiff", "BriefcaseMerge", "CSystemShims",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "briefcase-fixtures", dependencies: ["BriefcaseKit"], path: "Sources/FixtureMaker"),
        // Benchmarks: `swift run -c release briefcase-bench --size 10MB --runs 3 --markdown Benchmarks.md` writes Benchmarks.md.
        .executableTarget(name: "briefcase-bench", dependencies: ["JSONCore", "BriefcaseKit", "BriefcaseJSON", "BriefcaseDatastore", "BriefcaseSQLite", "BriefcaseDiff", "BriefcaseMerge"], path: "Sources/BriefcaseBench"),
        .testTarget(name: "BriefcaseKitTests", dependencies: ["BriefcaseKit", "BriefcaseTestSupport"]),
        .testTarget(name: "BriefcaseJSONTests", dependencies: ["JSONCore", "BriefcaseKit", "BriefcaseJSON", "BriefcaseTestSupport"]),
        // Runs the built `briefcase` executable as a subprocess.
        .testTarget(name: "BriefcaseCLITests", dependencies: ["briefcase", "JSONCore", "BriefcaseKit", "BriefcaseJSON", "BriefcaseTestSupport"]),
        .target(name: "BriefcaseTestSupport", dependencies: ["BriefcaseKit"], path: "Tests/Support"),
        .testTarget(name: "BriefcaseRecordsTests", dependencies: ["BriefcaseRecords", "BriefcaseKit", "BriefcaseTestSupport"]),
        .testTarget(name: "BriefcaseDiffTests", dependencies: ["BriefcaseDiff", "BriefcaseKit", "BriefcaseTestSupport"]),
        .testTarget(name: "BriefcaseMergeTests", dependencies: ["BriefcaseMerge", "BriefcaseKit", "DatastoreKit", "JSONCore", "BriefcaseTestSupport"]),
        // Opens what the SQLite format writes with the sqlite3 shell (apt-get install sqlite3).
        .testTarget(name: "BriefcaseSQLiteTests", dependencies: ["BriefcaseSQLite", "BriefcaseKit", "BriefcaseTestSupport"]),
        .testTarget(name: "DatastoreKitTests", dependencies: ["DatastoreKit", "JSONCore"]),
        // Every Swift snippet of the README, ARCHITECTURE.md, docs/ and the DocC articles, type-checked
        // by swiftc with only its own imports against these modules (which it depends on to have them built).
        .testTarget(name: "DocumentationTests", dependencies: ["JSONCore", "BriefcaseKit", "BriefcaseJSON", "BriefcaseRecords", "BriefcaseSQLite",
                                                               "DatastoreKit", "BriefcaseDatastore", "BriefcaseDiff", "BriefcaseTestSupport"]),
        .testTarget(name: "BriefcaseDatastoreTests", dependencies: ["BriefcaseDatastore", "JSONCore", "BriefcaseKit", "BriefcaseJSON", "DatastoreKit", "BriefcaseTestSupport"]),
    ]
)
