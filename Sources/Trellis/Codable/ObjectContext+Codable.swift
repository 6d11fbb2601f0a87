import Foundation

/// `Codable` values out of the store and into it, through the JSON shape `trellis export`
/// writes and `trellis import` reads: a type that decodes an export decodes fetched
/// objects, and a type whose encoding imports as a payload imports as objects.
extension ObjectContext {
    /// The objects `request` asks for, each decoded as `T` from the JSON its export takes
    /// (``ObjectExporter`` with `exportOptions`: mapped properties at their key paths,
    /// relationships nested or as identifiers), in the request's order. No text is written
    /// or read: the export tree is decoded directly.
    ///
    ///     struct Hero: Decodable { var name: String; var powers: [Power] }
    ///     let heroes = try context.fetch(ObjectFetchRequest(entity: "Character", limit: 10), as: Hero.self)
    ///
    /// - Parameters:
    ///   - request: what to fetch (saved state, as ``fetch(_:)-(ObjectFetchRequest)``).
    ///   - type: the type of each value.
    ///   - exportOptions: the export's shape (nil policy, relationship style, depth).
    ///   - decoder: the strategies; the default reads the export's dates (RFC 3339 with
    ///     fractions) and base64 binary (``TrellisJSONDecoder/forStoredObjects()``).
    /// - Throws: as ``fetch(_:)-(ObjectFetchRequest)``; `DecodingError` with Foundation's case
    ///   and coding path, its description ending with the object and the JSON path
    ///   (`(object Character/12, at $.publisher.name)`).
    public func fetch<T: Decodable>(
        _ request: ObjectFetchRequest, as type: T.Type, exportOptions: ExportOptions = ExportOptions(),
        decoder: TrellisJSONDecoder = .forStoredObjects()
    ) throws -> [T] {
        let objects = try fetch(request)
        let exporter = ObjectExporter(context: self, options: exportOptions)
        var values: [T] = []
        values.reserveCapacity(objects.count)
        for object in objects {
            let json = try exporter.json(for: object)
            values.append(try decoder.decode(T.self, fromValue: json, place: "object \(object.objectID)"))
        }
        return values
    }

    /// Imports `values` as objects of `entity`: each is encoded to the JSON tree
    /// `encoder` makes of it (no text is written) and imported through the entity's
    /// mapping, as ``importObjects(from:entity:options:)`` imports a payload's array, in
    /// one transaction.
    ///
    ///     struct Hero: Encodable { var id: String; var name: String }
    ///     let report = try context.importObjects(heroes, entity: "Character")
    ///
    /// - Parameters:
    ///   - values: the values, in order (`$[i]` in errors).
    ///   - entity: the entity name in the context's model.
    ///   - options: as for a payload.
    ///   - encoder: the strategies; the default writes dates as RFC 3339 keeping their
    ///     fractions and binary as base64 (``TrellisJSONEncoder/forStoredObjects()``).
    /// - Returns: the import's report.
    /// - Throws: `EncodingError` from the encoder (nothing imported); otherwise as
    ///   ``importObjects(from:entity:options:)``: atomic, nothing kept on error.
    public func importObjects<Values: Sequence>(
        _ values: Values, entity: String, options: ImportOptions = ImportOptions(), encoder: TrellisJSONEncoder = .forStoredObjects()
    ) throws -> ImportReport where Values.Element: Encodable {
        var elements: [JSONValue] = []
        elements.reserveCapacity(values.underestimatedCount)
        for value in values { elements.append(try encoder.encodeToJSONValue(value)) }
        return try importObjects(from: .array(elements), entity: entity, options: options)
    }
}
