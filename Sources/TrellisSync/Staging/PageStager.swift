import Foundation
import Trellis

/// Writes each fetched page, as it came, before it is imported (`trellis sync --stage DIR`):
/// `DIR/RESOURCE/000001.json` describes the page and `000001.body` holds its body's bytes.
///
///     {"format": "trellis-staged-page", "formatVersion": 1, "resource": "heroes",
///      "url": "http://…/classes/Hero?limit=1000&order=updatedAt,objectId", "status": 200,
///      "headers": [["Content-Type", "application/json"], …], "next": "http://…" | null,
///      "body": "000001.body", "bodyBytes": 301234}
///
/// Secrets never reach the files: credential headers (``Redactor/isSecretHeader(_:)``) and
/// `Set-Cookie` are left out, and every secret in the URL, the other headers and the body is
/// replaced by `***`. Numbers continue after the pages already in the directory, so the
/// pages of several runs replay in order (``Synchronizer/init(replaying:source:context:options:)``).
final class PageStager {
    let directory: URL
    let resource: String
    let redactor: Redactor
    private var number: Int

    init(directory: URL, resource: String, redactor: Redactor) throws {
        self.directory = directory.appendingPathComponent(resource, isDirectory: true)
        self.resource = resource
        self.redactor = redactor
        do {
            try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
            number = try StagedPages.pageFiles(in: self.directory).last?.number ?? 0
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(
                .staging, message: "cannot create the staging directory \(self.directory.path): \((error as NSError).localizedDescription)",
                resource: resource)
        }
    }

    /// Writes one page (the body first, then its description, so a description always has its body).
    func stage(_ response: HTTPResponse, url: URL, next: URL?, fetcher client: HTTPClient) throws {
        number += 1
        let name = String(format: "%06d", number)
        let bodyFile = directory.appendingPathComponent(name + ".body")
        let metaFile = directory.appendingPathComponent(name + ".json")
        var body = response.body
        if !redactor.forms.isEmpty, redactor.containsSecret(String(decoding: body, as: UTF8.self)) {
            body = Data(redactor.redact(String(decoding: body, as: UTF8.self)).utf8)
        }
        let headers: [JSONValue] = response.headers.fields
            .filter { !Redactor.isSecretHeader($0.name) && $0.name.lowercased() != "set-cookie" }
            .map { [.string($0.name), .string(redactor.redact($0.value))] }
        var meta = JSONObject()
        meta.append(key: "format", value: "trellis-staged-page")
        meta.append(key: "formatVersion", value: 1)
        meta.append(key: "resource", value: .string(resource))
        meta.append(key: "url", value: .string(redactor.redact(client.storable(url).absoluteString)))
        meta.append(key: "status", value: JSONValue(response.status))
        meta.append(key: "headers", value: .array(headers))
        meta.append(key: "next", value: next.map { .string(redactor.redact(client.storable($0).absoluteString)) } ?? .null)
        meta.append(key: "body", value: .string(name + ".body"))
        meta.append(key: "bodyBytes", value: JSONValue(body.count))
        do {
            try body.write(to: bodyFile, options: .atomic)
            try JSONWriter.data(for: .object(meta), options: .pretty).write(to: metaFile, options: .atomic)
        } catch {
            throw SyncError(
                .staging, message: "cannot write the staged page \(metaFile.path): \((error as NSError).localizedDescription)",
                resource: resource)
        }
    }
}
