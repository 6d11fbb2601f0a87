// swift-format-ignore-file: AlwaysUseLowerCamelCase, IdentifiersMustBeASCII
// (the Codable types mirror JSON keys as written: snake_case, non-ASCII, leading underscores)

import Foundation
import Trellis

/// `trellis-bench codable [--corpus DIR] [--characters FILE] [--runs N] [--json]`
///
/// Decodes twitter.json (as the search response's `Codable` structs), citm_catalog.json
/// (its catalog structs) and the characters file (`[CodableCharacter]`, ISO 8601 dates) with
/// `JSONDecoder` and `TrellisJSONDecoder` in the same process, best of `--runs` (default
/// 5), then encodes the decoded values back with `JSONEncoder` and `TrellisJSONEncoder`
/// (`.sortedKeys`, whose bytes are compared). The decode peak RSS of each decoder on the
/// characters file is measured in its own child process (`--child-peak foundation|trellis`).
/// Ratios are Foundation time / Trellis time; with `--json` the last line is
/// `{"workload":"codable","decode_ratio":{…},"encode_ratio":{…},"decode_peak_ratio":P}`,
/// P being Trellis peak RSS / Foundation peak RSS.
enum CodableWorkload {
    static let usage = "usage: trellis-bench codable [--corpus DIR] [--characters FILE] [--runs N] [--json] | codable --stream FILE [--json]"

    static func run(_ arguments: [String]) -> Int32 {
        var corpus = "Tests/Fixtures/corpus"
        var characters = "Benchmarks/data/characters.json"
        var runs = 5
        var json = false
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--corpus": corpus = iterator.next() ?? corpus
            case "--characters": characters = iterator.next() ?? characters
            case "--runs": runs = iterator.next().flatMap(Int.init) ?? runs
            case "--json": json = true
            case "--stream":
                guard let file = iterator.next() else { return 64 }
                return stream(file: file, json: arguments.contains("--json"))
            case "--child-peak":
                guard let side = iterator.next(), let file = iterator.next() else { return 64 }
                return childPeak(side: side, file: file)
            case "--help", "-h":
                print(usage)
                return 0
            default:
                FileHandle.standardError.write(Data("error: unknown option '\(argument)'\n\(usage)\n".utf8))
                return 64
            }
        }
        do {
            let twitter = try Data(contentsOf: URL(fileURLWithPath: corpus + "/twitter.json"))
            let citm = try Data(contentsOf: URL(fileURLWithPath: corpus + "/citm_catalog.json"))
            guard FileManager.default.fileExists(atPath: characters) else {
                FileHandle.standardError.write(Data("error: \(characters) does not exist; run Scripts/generate-bench-data.sh\n".utf8))
                return 1
            }
            let people = try Data(contentsOf: URL(fileURLWithPath: characters))
            var decodeRatios: [(String, Double)] = []
            var encodeRatios: [(String, Double)] = []
            print("codable: decode and encode, best of \(runs) (wall seconds), Foundation vs Trellis")
            let t = try measure("twitter", TwitterResponse.self, twitter, runs: runs)
            let c = try measure("citm", CitmCatalog.self, citm, runs: runs)
            let h = try measure("characters", [CodableCharacter].self, people, runs: runs)
            for (name, figures) in [("twitter", t), ("citm", c), ("characters", h)] {
                decodeRatios.append((name, figures.decode))
                encodeRatios.append((name, figures.encode))
            }
            let foundationPeak = try childPeakRSS(side: "foundation", file: characters)
            let trellisPeak = try childPeakRSS(side: "trellis", file: characters)
            let peakRatio = Double(trellisPeak) / Double(foundationPeak)
            print(
                "  decode peak RSS, characters (\(Bench.format(Bench.megabytes(people.count))) MB, own process each): "
                    + "Foundation \(Bench.format(Bench.megabytes(foundationPeak))) MB, Trellis \(Bench.format(Bench.megabytes(trellisPeak))) MB, "
                    + "ratio \(Bench.format(peakRatio, 2))")
            if json {
                func object(_ pairs: [(String, Double)]) -> String {
                    "{" + pairs.map { "\"\($0.0)\":\(Bench.format($0.1, 2))" }.joined(separator: ",") + "}"
                }
                print(
                    "{\"workload\":\"codable\",\"decode_ratio\":\(object(decodeRatios)),\"encode_ratio\":\(object(encodeRatios)),"
                        + "\"decode_peak_ratio\":\(Bench.format(peakRatio, 2))}")
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return 1
        }
    }

    static func decoders() -> (JSONDecoder, TrellisJSONDecoder) {
        let foundation = JSONDecoder()
        foundation.dateDecodingStrategy = .iso8601
        let trellis = TrellisJSONDecoder()
        trellis.dateDecodingStrategy = .iso8601
        return (foundation, trellis)
    }

    /// Decode and encode ratios for one file.
    static func measure<T: Codable>(_ name: String, _ type: T.Type, _ data: Data, runs: Int) throws -> (decode: Double, encode: Double) {
        let (foundationDecoder, trellisDecoder) = decoders()
        var value: T?
        let foundationDecode = try Bench.measure(runs: runs, reset: { value = nil }, { value = try foundationDecoder.decode(T.self, from: data) })
        let trellisDecode = try Bench.measure(runs: runs, reset: { value = nil }, { value = try trellisDecoder.decode(T.self, from: data) })
        guard let decoded = value else { throw MappingBenchError(message: "\(name): nothing decoded") }
        let foundationEncoder = JSONEncoder()
        foundationEncoder.outputFormatting = .sortedKeys
        foundationEncoder.dateEncodingStrategy = .iso8601
        let trellisEncoder = TrellisJSONEncoder()
        trellisEncoder.outputFormatting = .sortedKeys
        trellisEncoder.dateEncodingStrategy = .iso8601
        var foundationBytes = Data()
        var trellisBytes = Data()
        let foundationEncode = try Bench.measure(runs: runs) { foundationBytes = try foundationEncoder.encode(decoded) }
        let trellisEncode = try Bench.measure(runs: runs) { trellisBytes = try trellisEncoder.encode(decoded) }
        guard foundationBytes == trellisBytes else { throw MappingBenchError(message: "\(name): the encoders wrote different bytes") }
        let decodeRatio = Bench.figures(foundationDecode).best / Bench.figures(trellisDecode).best
        let encodeRatio = Bench.figures(foundationEncode).best / Bench.figures(trellisEncode).best
        let megabytes = Bench.megabytes(data.count)
        func line(_ label: String, _ f: Bench.Timing, _ tr: Bench.Timing, _ ratio: Double) {
            print(
                "  \(name.padding(toLength: 11, withPad: " ", startingAt: 0)) \(label): Foundation \(Bench.format(Bench.figures(f).best, 4)) s, "
                    + "Trellis \(Bench.format(Bench.figures(tr).best, 4)) s (\(Bench.format(megabytes / Bench.figures(tr).best)) MB/s), ratio \(Bench.format(ratio, 2))"
            )
        }
        line("decode", foundationDecode, trellisDecode, decodeRatio)
        line("encode", foundationEncode, trellisEncode, encodeRatio)
        return (decodeRatio, encodeRatio)
    }

    /// The peak RSS a child process reports for decoding `file` with one side.
    static func childPeakRSS(side: String, file: String) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        if !FileManager.default.isExecutableFile(atPath: process.executableURL!.path) {
            process.executableURL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(CommandLine.arguments[0])
        }
        process.arguments = ["codable", "--child-peak", side, file]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let bytes = Int(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw MappingBenchError(message: "the \(side) peak child failed")
        }
        return bytes
    }

    /// Decodes the characters of `file` (a top-level array or JSON Lines) one element at a
    /// time with `decodeElements`, and reports the process's peak RSS: bounded by one
    /// element and the 1 MiB read buffer, whatever the file's size. Last line:
    /// `{"workload":"codable-stream","elements":N,"bytes":B,"seconds":S,"peak_rss_mb":M}`.
    static func stream(file: String, json: Bool) -> Int32 {
        do {
            let (_, trellis) = decoders()
            let start = Date()
            let elements = try trellis.decodeElements(of: CodableCharacter.self, from: URL(fileURLWithPath: file))
            var count = 0
            var powers = 0
            while let character = try elements.next() {
                count += 1
                powers += character.powers.count
            }
            let seconds = Date().timeIntervalSince(start)
            let peak = Bench.megabytes(Bench.peakRSS())
            let bytes = elements.totalBytes ?? elements.bytesConsumed
            print(
                "codable --stream: \(count) elements (\(powers) powers), \(Bench.format(Bench.megabytes(bytes))) MB in "
                    + "\(Bench.format(seconds, 2)) s, peak RSS \(Bench.format(peak)) MB")
            if json {
                print(
                    "{\"workload\":\"codable-stream\",\"elements\":\(count),\"bytes\":\(bytes),\"seconds\":\(Bench.format(seconds, 2)),"
                        + "\"peak_rss_mb\":\(Bench.format(peak))}")
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return 1
        }
    }

    /// In the child: read the file, reset the peak mark, decode once, print the peak RSS
    /// above the RSS before decoding (the file's bytes excluded).
    static func childPeak(side: String, file: String) -> Int32 {
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            let (foundation, trellis) = decoders()
            Bench.trimHeap()
            let before = Bench.currentRSS()
            Bench.resetPeakRSS()
            let count: Int
            if side == "trellis" {
                count = try trellis.decode([CodableCharacter].self, from: data).count
            } else {
                count = try foundation.decode([CodableCharacter].self, from: data).count
            }
            precondition(count > 0)
            print(Bench.peakRSS() - before)
            return 0
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return 1
        }
    }
}

// MARK: - The corpus as Codable structs

struct TwitterResponse: Codable {
    struct User: Codable {
        let id: Int64
        let id_str: String
        let name: String
        let screen_name: String
        let location: String
        let description: String
        let url: String?
        let protected: Bool
        let followers_count: Int
        let friends_count: Int
        let listed_count: Int
        let created_at: String
        let favourites_count: Int
        let utc_offset: Int?
        let time_zone: String?
        let geo_enabled: Bool
        let verified: Bool
        let statuses_count: Int
        let lang: String
        let profile_image_url_https: String
        let default_profile: Bool
    }
    struct Hashtag: Codable {
        let text: String
        let indices: [Int]
    }
    struct Mention: Codable {
        let screen_name: String
        let name: String
        let id: Int64
        let id_str: String
        let indices: [Int]
    }
    struct Entities: Codable {
        let hashtags: [Hashtag]
        let user_mentions: [Mention]
    }
    struct Metadata: Codable {
        let result_type: String
        let iso_language_code: String
    }
    final class Status: Codable {
        let metadata: Metadata
        let created_at: String
        let id: UInt64
        let id_str: String
        let text: String
        let source: String
        let truncated: Bool
        let in_reply_to_status_id: Int64?
        let in_reply_to_screen_name: String?
        let user: User
        let retweeted_status: Status?
        let retweet_count: Int
        let favorite_count: Int
        let entities: Entities
        let favorited: Bool
        let retweeted: Bool
        let possibly_sensitive: Bool?
        let lang: String
    }
    struct SearchMetadata: Codable {
        let completed_in: Double
        let max_id: Int64
        let max_id_str: String
        let next_results: String
        let query: String
        let refresh_url: String
        let count: Int
        let since_id: Int
        let since_id_str: String
    }
    let statuses: [Status]
    let search_metadata: SearchMetadata
}

struct CitmCatalog: Codable {
    struct Event: Codable {
        let description: String?
        let id: Int
        let logo: String?
        let name: String
        let subTopicIds: [Int]
        let subjectCode: String?
        let subtitle: String?
        let topicIds: [Int]
    }
    struct Price: Codable {
        let amount: Int
        let audienceSubCategoryId: Int
        let seatCategoryId: Int
    }
    struct Area: Codable {
        let areaId: Int
        let blockIds: [Int]
    }
    struct SeatCategory: Codable {
        let areas: [Area]
        let seatCategoryId: Int
    }
    struct Performance: Codable {
        let eventId: Int
        let id: Int
        let logo: String?
        let name: String?
        let prices: [Price]
        let seatCategories: [SeatCategory]
        let seatMapImage: String?
        let start: Int
        let venueCode: String
    }
    let areaNames: [String: String]
    let audienceSubCategoryNames: [String: String]
    let blockNames: [String: String]
    let events: [String: Event]
    let performances: [Performance]
    let seatCategoryNames: [String: String]
    let subTopicNames: [String: String]
    let subjectNames: [String: String]
    let topicNames: [String: String]
    let topicSubTopics: [String: [Int]]
    let venueNames: [String: String]
}
