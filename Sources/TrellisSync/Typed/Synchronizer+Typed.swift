import Foundation
import Trellis

/// The typed request/response path: a `JSONRepresentable` request model becomes a GET's
/// query, the response maps onto a `JSONMappable` model, and ``syncResource(_:request:)``
/// stores the records, page by page, with its checkpoint, like ``run()``.
///
///     let search = ArticleSearch(query: "moon landing", beginDate: july1, endDate: nil)
///     let response: ArticleSearchResponse = try synchronizer.fetch("articles", request: search)
///     let report = try synchronizer.syncResource("articles", request: search)
///     // offline: the stored objects are still there
///     let stored = try context.fetch("Article").map { try StoredArticle(managedObject: $0) }
extension Synchronizer {
    /// Syncs the resource named `name`, its query parameters overridden (or completed) by the
    /// request model's (``QueryParameters``).
    /// - Returns: what the run did to the resource.
    /// - Throws: ``SyncError`` as ``run()``; `.unknownResource`; `.mapping` for a request that
    ///   has no query form.
    public func syncResource<Request: JSONRepresentable>(_ name: String, request: Request) throws -> ResourceReport {
        let resource = try configured(name, request: request)
        var report = ResourceReport(name: resource.name, entity: try entityName(of: resource))
        do {
            if let pending = try sync(resource, into: &report) { try deleteMissing(pending, report: &report) }
            return report
        } catch {
            let located = locate(error, resource: resource.name)
            if !options.dryRun { recordFailure(located, of: resource) }
            throw located
        }
    }

    /// Fetches the first page of the resource named `name` with the request model's
    /// parameters, and maps its whole body onto `Response` (nothing is stored).
    /// - Throws: ``SyncError`` as ``run()``; `.mapping` with the ``MappingError``'s path when
    ///   the body does not fit `Response`.
    public func fetch<Request: JSONRepresentable, Response: JSONMappable>(
        _ name: String, request: Request,
        as type: Response.Type = Response.self
    ) throws -> Response {
        let resource = try configured(name, request: request)
        let planner = WalkPlanner(resource: resource, client: client)
        let url = try planner.firstURL(start: nil)
        let pageURL = client.printable(url)
        do {
            let exchange = try client.get(url, resource: resource.name)
            let body: JSONValue
            do {
                body = try JSONReader.parse(exchange.response.body)
            } catch {
                throw SyncError(.malformedPage, message: "the body is not JSON: \(error.message)", line: error.line, column: error.column)
            }
            do {
                return try Response(json: body)
            } catch let error as MappingError {
                throw SyncError(.mapping, message: "the response does not fit \(Response.self): \(error)", path: error.path, underlying: error)
            }
        } catch {
            throw locate(error, resource: resource.name, pageURL: pageURL)
        }
    }

    /// The resource `name` with the request's parameters.
    func configured<Request: JSONRepresentable>(_ name: String, request: Request) throws -> ResourceConfiguration {
        guard var resource = source.resource(named: name) else {
            throw SyncError(
                .unknownResource, message: "no resource named '\(name)' in the source (resources: \(source.resources.map(\.name).joined(separator: ", ")))")
        }
        let items = try QueryParameters.items(of: request)
        resource.params = resource.params.filter { param in !items.contains { $0.name == param.name } } + items
        return resource
    }
}
