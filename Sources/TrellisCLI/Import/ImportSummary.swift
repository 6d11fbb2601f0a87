import Foundation
import Trellis

/// The text `trellis import` prints: a table (default) or one JSON object (`--report json`).
enum ImportSummary {
    /// Entities to show: the model's entities that the report counts, in model order,
    /// plus the imported entity even when nothing was counted for it, unless it is abstract
    /// (its objects are counted under their sub-entities: its row would always be zeros).
    static func entities(_ report: ImportReport, model: ObjectModel, imported: String) -> [String] {
        model.entities.filter { entity in
            report.counts[entity.name] != nil || (entity.name == imported && !entity.isAbstract)
        }.map(\.name)
    }

    /// ```
    /// entity      inserted   updated  unchanged   deleted
    /// Status           115         0          0         0
    /// imported 100 elements from 1 file into trellis.sqlite in 0.08 s
    /// ```
    static func text(
        _ report: ImportReport, model: ObjectModel, imported: String, files: Int, store: String,
        seconds: Double
    ) -> String {
        let names = entities(report, model: model, imported: imported)
        let width = max(6, names.map(\.count).max() ?? 0)
        func pad(_ s: String, _ n: Int, left: Bool) -> String {
            let fill = String(repeating: " ", count: max(0, n - s.count))
            return left ? s + fill : fill + s
        }
        var text =
            pad("entity", width, left: true) + pad("inserted", 10, left: false) + pad("updated", 10, left: false)
            + pad("unchanged", 11, left: false) + pad("deleted", 10, left: false) + "\n"
        for name in names {
            let c = report.counts(for: name)
            text +=
                pad(name, width, left: true) + pad(String(c.inserted), 10, left: false) + pad(String(c.updated), 10, left: false)
                + pad(String(c.unchanged), 11, left: false) + pad(String(c.deleted), 10, left: false) + "\n"
        }
        if let skipped = skippedNulls(report) { text += skipped + "\n" }
        let elements = report.elementCount == 1 ? "1 element" : "\(report.elementCount) elements"
        let fileText = files == 1 ? "1 file" : "\(files) files"
        let time = String(format: "%.2f s", seconds)
        if report.isDryRun {
            text += "dry run: \(elements) from \(fileText) checked against \(store) in \(time); nothing was written\n"
        } else {
            text += "imported \(elements) from \(fileText) into \(store) in \(time)\n"
        }
        return text
    }

    /// `skipped 2 null elements: $[3], $[7].powers[0]` (the first 3 paths, then `…`), or nil
    /// when the import skipped none.
    static func skippedNulls(_ report: ImportReport) -> String? {
        let count = report.nullElementsSkipped
        guard count > 0 else { return nil }
        let paths = report.diagnostics.filter { $0.code == .nullElementSkipped }.compactMap(\.path).map(\.description)
        var text = "skipped \(count) null element\(count == 1 ? "" : "s")"
        if !paths.isEmpty { text += ": " + paths.prefix(3).joined(separator: ", ") + (count > 3 ? ", …" : "") }
        return text
    }

    /// `{"entities":{"Status":{"inserted":115,"updated":0,"unchanged":0,"deleted":0}},"seconds":0.081}` and a newline;
    /// with `"nullElementsSkipped":N` after the entities when the import skipped `null` elements, and
    /// `"model":"inferred"` (or `"recorded"`, `"extended"`) when the import had no `--model`.
    static func json(_ report: ImportReport, model: ObjectModel, imported: String, seconds: Double, origin: String? = nil) -> String {
        var entities = JSONObject()
        for name in self.entities(report, model: model, imported: imported) {
            let c = report.counts(for: name)
            entities.append(
                key: name,
                value: [
                    "inserted": JSONValue(c.inserted), "updated": JSONValue(c.updated),
                    "unchanged": JSONValue(c.unchanged), "deleted": JSONValue(c.deleted),
                ])
        }
        let rounded = (seconds * 1000).rounded() / 1000
        var object = JSONObject()
        object.append(key: "entities", value: .object(entities))
        if report.nullElementsSkipped > 0 { object.append(key: "nullElementsSkipped", value: JSONValue(report.nullElementsSkipped)) }
        object.append(key: "seconds", value: .number(JSONNumber(rounded)))
        if let origin { object.append(key: "model", value: .string(origin)) }
        return ((try? JSONWriter.string(for: .object(object))) ?? "{}") + "\n"
    }
}
