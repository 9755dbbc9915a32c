// swift-tools-version:6.0
import PackageDescription

// An app that links the briefcase library by path, as yours would by URL:
//     .package(url: "https://…/briefcase.git", from: "…")
let package = Package(
    name: "RecordsExample",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "briefcase", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "RecordsExample",
            dependencies: [.product(name: "BriefcaseRecords", package: "briefcase")]
        ),
    ]
)
