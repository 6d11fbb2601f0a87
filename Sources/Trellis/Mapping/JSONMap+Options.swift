import Foundation

extension JSONMap {
    /// How a ``JSONMap`` reads values. `Sendable`; pass at the call site
    /// (`User(jsonData: data, options: .init(strict: true))`); every nested map shares it.
    public struct Options: Sendable {
        /// How `Date` properties read JSON values (transformers passed with
        /// `using:` override this per property).
        public enum DateStrategy: Sendable {
            /// The default: a string in RFC 3339 / ISO 8601 date-time form with any
            /// number of fraction digits (`2011-08-21T18:02:52Z`,
            /// `2011-08-21T18:02:52.249+02:00`), or a number of seconds since
            /// 1970-01-01T00:00:00Z (`1314036172`, `1314036172.249`).
            case flexible
            /// Only RFC 3339 / ISO 8601 strings; numbers are a type mismatch.
            case rfc3339
            /// Only numbers, as seconds since 1970-01-01T00:00:00Z.
            case epochSeconds
            /// Only numbers, as milliseconds since 1970-01-01T00:00:00Z.
            case epochMilliseconds
            /// Your conversion (throw any error; it is reported with the path).
            case custom(@Sendable (JSONValue) throws -> Date)
        }

        /// How `Date` properties read values; default ``DateStrategy/flexible``.
        public var dateStrategy: DateStrategy
        /// When `false` (the default, Mappable's rule), an optional property whose value
        /// is present but cannot be converted is nil. When `true`, it throws the
        /// conversion error instead. Missing and `null` values are nil either way.
        public var strict: Bool
        /// The transformers `map.from(_:using: "name")` finds by name; default
        /// ``JSONValueTransformerRegistry/standard`` (`iso8601`, `epoch-seconds`, …).
        public var transformers: JSONValueTransformerRegistry
        /// How `init(jsonData:)` and `init(jsonString:)` parse (depth limit, lone
        /// surrogates, byte order mark); default ``JSONReader/Options/init(maximumDepth:loneSurrogatePolicy:allowsByteOrderMark:)``.
        public var readerOptions: JSONReader.Options
        /// The deepest nesting of objects and arrays a model may be read from (default
        /// 512, the reader's own limit): a recursive model (a tree of comments) recurses
        /// once per level, so this bounds the stack whatever the document.
        public var maximumDepth: Int
        /// Makes the decoder for `Decodable` leaf values (a fresh one per value; configure
        /// its date and key strategies here). Default: `TrellisJSONDecoder()`, which
        /// decodes the leaf's subtree directly, with `JSONDecoder`'s results.
        public var makeCodableDecoder: @Sendable () -> TrellisJSONDecoder
        /// A Foundation `JSONDecoder` for `Decodable` leaf values instead of
        /// ``makeCodableDecoder`` (the leaf's subtree is then written back to text and read
        /// by it). Setting it chooses Foundation's decoder; reading it when unset gives
        /// `JSONDecoder()`.
        public var makeDecoder: @Sendable () -> JSONDecoder {
            get { foundationDecoder ?? { JSONDecoder() } }
            set { foundationDecoder = newValue }
        }
        /// The Foundation decoder chosen through ``makeDecoder``, nil for the default.
        var foundationDecoder: (@Sendable () -> JSONDecoder)?

        /// Options with the defaults: flexible dates, lenient optionals, the standard
        /// transformers, the reader's default limits, a default `TrellisJSONDecoder`
        /// (`makeDecoder`, when given, chooses a Foundation `JSONDecoder` instead).
        public init(
            dateStrategy: DateStrategy = .flexible, strict: Bool = false,
            transformers: JSONValueTransformerRegistry = .standard,
            readerOptions: JSONReader.Options = JSONReader.Options(),
            maximumDepth: Int = 512,
            makeDecoder: (@Sendable () -> JSONDecoder)? = nil,
            makeCodableDecoder: @escaping @Sendable () -> TrellisJSONDecoder = { TrellisJSONDecoder() }
        ) {
            self.dateStrategy = dateStrategy
            self.strict = strict
            self.transformers = transformers
            self.readerOptions = readerOptions
            self.maximumDepth = maximumDepth
            foundationDecoder = makeDecoder
            self.makeCodableDecoder = makeCodableDecoder
        }
    }
}

/// The options of one mapping, shared by reference by all maps it creates (one
/// retain per nested map instead of a copy of the options).
final class MappingContext: Sendable {
    let options: JSONMap.Options

    init(options: JSONMap.Options) {
        self.options = options
    }
}
