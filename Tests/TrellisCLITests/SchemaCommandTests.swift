import Foundation
import Testing

@testable import TrellisCLI

@Suite struct SchemaCommandTests {
    @Test func printsTheStoresTablesAndIndexes() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        let result = w.run("schema", "--model", "model.json")
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let statements = result.stdout.components(separatedBy: ";\n").filter { !$0.isEmpty }
        #expect(
            statements.map { $0.prefix(while: { $0 != "(" }) } == [
                #"CREATE TABLE "trellis_metadata" "#,
                #"CREATE TABLE "Post" "#,
                #"CREATE TABLE "Author" "#,
                #"CREATE INDEX "Post"#,
                #"CREATE UNIQUE INDEX "Post identity" ON "Post""#,
                #"CREATE UNIQUE INDEX "Author identity" ON "Author""#,
            ])
        #expect(result.stdout.contains(#"  "author" INTEGER REFERENCES "Author"("_pk") ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED"#))
        #expect(result.stdout.hasSuffix(#"CREATE UNIQUE INDEX "Author identity" ON "Author"("id");"# + "\n"))
        // Nothing is left behind in the current directory.
        #expect(try FileManager.default.contentsOfDirectory(atPath: w.url.path) == ["model.json"])
    }

    @Test func missingModelFile() throws {
        let w = try CommandWorkspace()
        defer { w.remove() }
        #expect(w.run("schema", "--model", "nope.json") == CommandResult(status: 1, stdout: "", stderr: "error: nope.json: no such file\n"))
    }
}
