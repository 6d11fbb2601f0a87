import Foundation
import Trellis
import TrellisModelFile
import TrellisTestSupport

/// Inference on small samples written in the tests.
enum InferenceSamples {
    /// A file of the repository by its path from the root (`Examples/twitter/model.json`).
    static func repositoryFile(_ path: String) -> URL {
        Fixtures.url("../../" + path).standardized
    }

    /// The model inferred from `json` (the collection: an array of objects, an object), root `entity`.
    static func infer(_ json: String, entity: String = "Item", known: [KnownEntity] = []) throws -> InferredModel {
        let inference = ModelInference(rootEntity: entity)
        inference.knownEntities = known
        try inference.add(collection: try JSONReader.parse(Data(json.utf8)), at: .root, source: "sample.json")
        return try inference.inferredModel()
    }

    /// The model inferred from several samples, one source each (`page-1.json`, …).
    static func infer(pages: [String], entity: String) throws -> InferredModel {
        let inference = ModelInference(rootEntity: entity)
        for (i, page) in pages.enumerated() {
            try inference.add(collection: try JSONReader.parse(Data(page.utf8)), at: .root, source: "page-\(i + 1).json")
        }
        return try inference.inferredModel()
    }
}

extension InferredModel {
    var model: ObjectModel { file.model }

    /// The entity names, in model order.
    var entityNames: [String] { model.entities.map(\.name) }

    func entity(_ name: String) -> EntityDescription? { model.entities.first { $0.name == name } }

    func attribute(_ entity: String, _ name: String) -> AttributeDescription? {
        self.entity(entity)?.attributes.first { $0.name == name }
    }

    func relationship(_ entity: String, _ name: String) -> RelationshipDescription? {
        self.entity(entity)?.relationships.first { $0.name == name }
    }

    /// `name: type[ transformer][ required] @ keyPath` for each attribute of `entity`.
    func attributeSummary(_ entity: String) -> [String] {
        (self.entity(entity)?.attributes ?? []).map { a in
            var text = "\(a.name): \(a.type)"
            if let t = a.transformerName { text += " " + t }
            if !a.isOptional { text += " required" }
            return text + " @ " + (a.jsonKeyPathText ?? "-")
        }
    }

    /// `name -> Destination (one|many[ ordered]) inverse X @ keyPath` for each relationship of `entity`.
    func relationshipSummary(_ entity: String) -> [String] {
        (self.entity(entity)?.relationships ?? []).map { r in
            "\(r.name) -> \(r.destinationEntity) (\(r.isToMany ? "many" : "one")\(r.isOrdered ? " ordered" : "")) inverse "
                + (r.inverseName ?? "-") + " @ " + (r.jsonKeyPathText ?? "-")
        }
    }

    /// The identity attribute names of `entity`.
    func identity(_ entity: String) -> [String] {
        model.entity(named: entity)?.identityAttributes.map(\.name) ?? []
    }
}
