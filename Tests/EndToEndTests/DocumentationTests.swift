import Foundation
import Testing
import TrellisTestSupport

/// The README and `docs/` stay inside the repository and true to `Package.swift`: every
/// relative link names a file that exists, nothing points at a path outside the checkout,
/// the products table lists exactly the package's products, and the docs index lists every
/// page.
@Suite struct DocumentationTests {
    static let root = Fixtures.repositoryRoot()

    /// `README.md`, `docs/*.md` and the examples' READMEs, relative to the root.
    static let pages: [String] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)) ?? []
        let examples = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Examples").path)) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
            + examples.sorted().map { "Examples/\($0)/README.md" }
            .filter { FileManager.default.fileExists(atPath: root.appendingPathComponent($0).path) }
    }()

    static func text(_ page: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(page), encoding: .utf8)
    }

    /// `text` without fenced code blocks and inline code spans (where `[T](x)` is Swift).
    static func prose(_ text: String) -> String {
        var out = ""
        var inFence = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                inFence.toggle()
                continue
            }
            if inFence { continue }
            let spans = line.split(separator: "`", omittingEmptySubsequences: false)
            out += spans.enumerated().filter { $0.offset % 2 == 0 }.map(\.element).joined() + "\n"
        }
        return out
    }

    /// The targets of `[text](target)` links in prose, without `#fragment`s, that are not URLs.
    static func relativeLinks(in text: String) -> [String] {
        var links: [String] = []
        let text = prose(text)
        var rest = text[...]
        while let open = rest.range(of: "](") {
            rest = rest[open.upperBound...]
            guard let close = rest.firstIndex(of: ")") else { break }
            let target = String(rest[..<close].split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0])
            if !target.isEmpty, !target.contains("://"), !target.hasPrefix("mailto:") { links.append(target) }
            rest = rest[close...]
        }
        return links
    }

    @Test(arguments: pages) func linksResolveInsideTheRepository(_ page: String) throws {
        let text = try Self.text(page)
        #expect(!page.isEmpty && !text.isEmpty)
        let directory = Self.root.appendingPathComponent(page).deletingLastPathComponent()
        for link in Self.relativeLinks(in: text) {
            let target = directory.appendingPathComponent(link).standardizedFileURL
            #expect(target.path.hasPrefix(Self.root.standardizedFileURL.path), "\(page): \(link) points outside the repository")
            #expect(FileManager.default.fileExists(atPath: target.path), "\(page): \(link) does not exist")
        }
        for outside in ["/work/", "../shared", "DESIGN.md"] {
            #expect(!text.contains(outside), "\(page) refers to \(outside), which users do not have")
        }
    }

    @Test func theProductsTableListsThePackagesProducts() throws {
        let manifest = try Self.text("Package.swift")
        let declared = Set(manifest.matches(of: /\.(?:library|executable)\(name: "([A-Za-z]+)"/).map { String($0.output.1) })
        #expect(declared.contains("Trellis"))
        let readme = try Self.text("README.md")
        let table = readme.split(separator: "\n").filter { $0.hasPrefix("| `") }
        let listed = Set(table.compactMap { row in row.firstMatch(of: /^\| `([A-Za-z]+)`/).map { String($0.output.1) } })
        #expect(listed == declared)
        // The dependency example names library products that exist.
        let used = Set(readme.matches(of: /\.product\(name: "([A-Za-z]+)", package: "trellis"\)/).map { String($0.output.1) })
        #expect(!used.isEmpty && used.isSubset(of: declared))
    }

    @Test func theDocsIndexListsEveryPage() throws {
        let index = try Self.text("docs/README.md")
        let linked = Set(Self.relativeLinks(in: index))
        for page in Self.pages where page.hasPrefix("docs/") && page != "docs/README.md" {
            #expect(linked.contains(String(page.dropFirst("docs/".count))), "docs/README.md does not list \(page)")
        }
        #expect(try Self.text("README.md").contains("](docs/README.md)"))
    }
}
