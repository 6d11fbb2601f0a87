// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Trellis",
    // The oldest versions with everything the libraries use: Duration and ContinuousClock
    // (macOS 13, iOS 16, tvOS 16, watchOS 9); Date.ISO8601FormatStyle needs only macOS 12 /
    // iOS 15. See docs/Platforms.md, which also lists the few platform branches.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "Trellis", targets: ["Trellis"]),
        .library(name: "TrellisSQLite", targets: ["TrellisSQLite"]),
        .library(name: "TrellisPostgres", targets: ["TrellisPostgres"]),
        .library(name: "TrellisModelFile", targets: ["TrellisModelFile"]),
        .library(name: "TrellisSync", targets: ["TrellisSync"]),
        .executable(name: "trellis", targets: ["trellis"]),
    ],
    targets: [
        // Core: JSON, key paths, transformers, object model, graph, import/export. No storage engine.
        .target(name: "Trellis", path: "Sources/Trellis"),
        // The system SQLite library (Debian: libsqlite3-dev; `Scripts/install-dependencies.sh`).
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        // libxml2 (Debian: libxml2-dev), for Core Data model files.
        .systemLibrary(
            name: "CLibXML2", path: "Sources/CLibXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]),
        // libpq, PostgreSQL's client library (Debian: libpq-dev; `Scripts/install-dependencies.sh`).
        .systemLibrary(
            name: "CLibPQ", path: "Sources/CLibPQ", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
        // The relational layout of a model shared by the SQL stores (names, storage rules,
        // which schema changes migrate); `package` API only, not a product.
        .target(name: "TrellisSQL", dependencies: ["Trellis"], path: "Sources/TrellisSQL"),
        // The embedded SQLite store: schema from the model, migrations, batched lookups, upserts.
        .target(name: "TrellisSQLite", dependencies: ["Trellis", "TrellisSQL", "CSQLite"], path: "Sources/TrellisSQLite"),
        // The PostgreSQL store: the same layout on a server, set-based writes, many writers.
        .target(name: "TrellisPostgres", dependencies: ["Trellis", "TrellisSQL", "CLibPQ"], path: "Sources/TrellisPostgres"),
        // Pulls REST APIs into a store: source files, HTTP (URLSession), paginators, Parse, checkpoints.
        .target(name: "TrellisSync", dependencies: ["Trellis"], path: "Sources/TrellisSync"),
        // Commands as a library, testable in-process.
        .target(
            name: "TrellisCLI", dependencies: ["Trellis", "TrellisModelFile", "TrellisSQLite", "TrellisSync", "TrellisPostgres"],
            path: "Sources/TrellisCLI"),
        // The Trellis JSON model format (read and write), with declarative bindings.
        .target(name: "TrellisModelFile", dependencies: ["Trellis", "CLibXML2"], path: "Sources/TrellisModelFile"),
        // `trellis`: @main only.
        .executableTarget(name: "trellis", dependencies: ["TrellisCLI"], path: "Sources/trellis"),
        // `trellis-bench`: the benchmark executable (run it with `-c release`).
        .executableTarget(
            name: "trellis-bench", dependencies: ["Trellis", "TrellisSQLite", "CSQLite", "TrellisSync", "TrellisPostgres"],
            path: "Benchmarks/trellis-bench"),
        // Fixture lookup and helpers shared by the test targets (not a product).
        .target(
            name: "TrellisTestSupport", dependencies: ["Trellis", "TrellisSQLite", "TrellisPostgres"],
            path: "Sources/TrellisTestSupport"),
        .testTarget(name: "TrellisTests", dependencies: ["Trellis", "TrellisTestSupport"], path: "Tests/TrellisTests"),
        .testTarget(
            name: "TrellisSQLiteTests", dependencies: ["TrellisSQLite", "TrellisSQL", "TrellisTestSupport"],
            path: "Tests/TrellisSQLiteTests"),
        .testTarget(
            name: "TrellisPostgresTests", dependencies: ["TrellisPostgres", "TrellisTestSupport"],
            path: "Tests/TrellisPostgresTests"),
        .testTarget(
            name: "TrellisModelFileTests", dependencies: ["TrellisModelFile", "Trellis", "TrellisTestSupport"],
            path: "Tests/TrellisModelFileTests"),
        .testTarget(
            name: "TrellisSyncTests", dependencies: ["TrellisSync", "Trellis", "TrellisSQLite", "TrellisModelFile", "TrellisTestSupport"],
            path: "Tests/TrellisSyncTests", exclude: ["Servers"]),
        .testTarget(
            name: "TrellisCLITests", dependencies: ["TrellisCLI", "Trellis", "TrellisTestSupport"],
            path: "Tests/TrellisCLITests"),
        // Runs the built `trellis` and `trellis-bench` binaries (the dependencies make `swift test` build them first).
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["trellis", "trellis-bench", "Trellis", "TrellisModelFile", "TrellisSQLite", "TrellisPostgres", "TrellisTestSupport"],
            path: "Tests/EndToEndTests"),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets (Fuzz/<name>/), declared only for `Scripts/fuzz.sh`, which sets
// TRELLIS_FUZZ=1 and builds with `-sanitize=fuzzer,address` into .build/fuzz. Each has an
// `@main` that hands control to libFuzzer's driver (FuzzSupport), since SwiftPM aliases an
// executable's `main` to its module's entry point.
if Context.environment["TRELLIS_FUZZ"] != nil {
    package.targets.append(.target(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"))
    package.targets.append(.target(name: "FuzzSupport", dependencies: ["CLibFuzzer"], path: "Fuzz/FuzzSupport"))
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("json", ["Trellis"]),
        ("codable", ["Trellis"]),
        ("ndjson", ["Trellis"]),
        ("keypath", ["Trellis"]),
        ("coredata-model", ["TrellisModelFile"]),
        ("json-model", ["Trellis", "TrellisModelFile"]),
        ("import", ["Trellis", "TrellisModelFile"]),
        ("infer", ["Trellis", "TrellisModelFile"]),
        ("predicate", ["Trellis", "TrellisSQLite"]),
        ("http-response", ["Trellis", "TrellisSync"]),
    ]
    for target in fuzzTargets {
        package.targets.append(
            .executableTarget(
                name: "fuzz-\(target.name)", dependencies: target.dependencies + ["FuzzSupport"], path: "Fuzz/\(target.name)"))
    }
}
