import Foundation

/// Locates test fixtures relative to the repository, via `#filePath` (not `Bundle.module`).
public enum Fixtures {
    /// The repository root, derived from this file's path (`Sources/TrellisTestSupport/Fixtures.swift`).
    public static func repositoryRoot(filePath: String = #filePath) -> URL {
        URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// `Tests/Fixtures/<relativePath>`.
    public static func url(_ relativePath: String) -> URL {
        repositoryRoot().appendingPathComponent("Tests/Fixtures").appendingPathComponent(relativePath)
    }

    /// The bytes of `Tests/Fixtures/<relativePath>`.
    public static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: url(relativePath))
    }
}
