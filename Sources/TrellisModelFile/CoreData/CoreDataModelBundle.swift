import Foundation

/// A `.xcdatamodeld` bundle as Xcode lays it out on disk:
///
///     Model.xcdatamodeld/
///         .xccurrentversion              plist: _XCCurrentVersionName = "Model 2.xcdatamodel"
///         Model.xcdatamodel/contents     XML, one per version
///         Model 2.xcdatamodel/contents
public struct CoreDataModelBundle: Sendable {
    /// The `.xcdatamodeld` directory.
    public let url: URL
    /// The versions (directory names without `.xcdatamodel`), in numeric-aware order
    /// (`Model`, `Model 2`, `Model 10`).
    public let versionNames: [String]
    /// The version `.xccurrentversion` names, when the file exists and is readable.
    public let currentVersionName: String?

    /// The plist key Xcode writes in `.xccurrentversion`.
    public static let currentVersionKey = "_XCCurrentVersionName"

    /// Lists the bundle's versions and reads its `.xccurrentversion`.
    /// - Throws: ``CoreDataModelError`` `.readFailed` when `url` is not a readable directory.
    public init(url: URL) throws {
        self.url = url
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        } catch {
            throw CoreDataModelError(.readFailed, file: url.path, message: "cannot list the model bundle: \(error.localizedDescription)")
        }
        versionNames = names.filter { $0.hasSuffix(".xcdatamodel") }
            .map { String($0.dropLast(".xcdatamodel".count)) }
            .sorted { $0.compare($1, options: .numeric) == .orderedAscending }
        currentVersionName = CoreDataModelBundle.readCurrentVersion(url.appendingPathComponent(".xccurrentversion"))
    }

    /// The version to read: `requested` (with or without `.xcdatamodel`), else the current
    /// version, else the only version.
    /// - Throws: ``CoreDataModelError`` `.unknownVersion` (listing the versions) or
    ///   `.missingCurrentVersion` (several versions, no `.xccurrentversion`).
    public func resolveVersion(_ requested: String?) throws -> String {
        if let requested {
            let name = requested.hasSuffix(".xcdatamodel") ? String(requested.dropLast(".xcdatamodel".count)) : requested
            guard versionNames.contains(name) else {
                throw CoreDataModelError(
                    .unknownVersion, file: url.path,
                    message: "no version '\(name)' in the bundle; versions: \(listing)")
            }
            return name
        }
        if let current = currentVersionName {
            guard versionNames.contains(current) else {
                throw CoreDataModelError(
                    .unknownVersion, file: url.path,
                    message: ".xccurrentversion names '\(current)', which is not in the bundle; versions: \(listing)")
            }
            return current
        }
        if versionNames.count == 1, let only = versionNames.first { return only }
        if versionNames.isEmpty {
            throw CoreDataModelError(.readFailed, file: url.path, message: "the bundle contains no .xcdatamodel version")
        }
        throw CoreDataModelError(
            .missingCurrentVersion, file: url.path,
            message: "the bundle has several versions and no readable .xccurrentversion; "
                + "choose one of: \(listing)")
    }

    /// The `contents` file of `version`.
    public func contentsURL(version: String) -> URL {
        url.appendingPathComponent(version + ".xcdatamodel").appendingPathComponent("contents")
    }

    private var listing: String { versionNames.isEmpty ? "none" : versionNames.joined(separator: ", ") }

    /// `_XCCurrentVersionName` without `.xcdatamodel`; nil when absent or unreadable.
    private static func readCurrentVersion(_ url: URL) -> String? {
        guard let data = try? Data(contentsOf: url),
            let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
            let name = plist[currentVersionKey] as? String
        else { return nil }
        return name.hasSuffix(".xcdatamodel") ? String(name.dropLast(".xcdatamodel".count)) : name
    }

    /// The `.xccurrentversion` plist naming `version` as current, as Xcode writes it.
    static func currentVersionPlist(version: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>\(currentVersionKey)</key>
        \t<string>\(XMLTreeElement.escape(version)).xcdatamodel</string>
        </dict>
        </plist>

        """
    }

    // MARK: - Locating a model's contents

    /// Where a model's `contents` is, for any of the accepted inputs.
    struct Location {
        var contentsURL: URL
        var displayPath: String
        var versionName: String?
        var versionNames: [String]
    }

    /// Finds the `contents` for a bundle (`version`, else current), a `.xcdatamodel`
    /// directory, or a `contents` file itself.
    static func locate(_ url: URL, version: String?) throws -> Location {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw CoreDataModelError(.readFailed, file: url.path, message: "no such file or directory")
        }
        guard isDirectory.boolValue else {
            return Location(contentsURL: url, displayPath: url.path, versionName: nil, versionNames: [])
        }
        if url.pathExtension == "xcdatamodeld" {
            let bundle = try CoreDataModelBundle(url: url)
            let name = try bundle.resolveVersion(version)
            let contents = bundle.contentsURL(version: name)
            return Location(
                contentsURL: contents, displayPath: contents.path, versionName: name,
                versionNames: bundle.versionNames)
        }
        let name = url.deletingPathExtension().lastPathComponent
        if let version, version != name, version != name + ".xcdatamodel" {
            throw CoreDataModelError(
                .unknownVersion, file: url.path,
                message: "'\(url.lastPathComponent)' is a single version ('\(name)'), not '\(version)'")
        }
        let contents = url.appendingPathComponent("contents")
        return Location(contentsURL: contents, displayPath: contents.path, versionName: name, versionNames: [name])
    }
}
