import Foundation

extension JSONWriteMap {
    /// How a ``JSONWriteMap`` writes values. `Sendable`; pass at the call site
    /// (`try user.jsonValue(options: .init(nilPolicy: .omit))`).
    public struct Options: Sendable {
        /// What `write(nil, to:)` does.
        public enum NilPolicy: Sendable, Hashable {
            /// Writes JSON `null` at the key path (the default; Mantle's behaviour).
            case null
            /// Writes nothing: the key is absent from the output.
            case omit
        }

        /// How `Date` values are written (a transformer passed with `using:` overrides it).
        public enum DateStrategy: Sendable {
            /// RFC 3339 in UTC with milliseconds, `2011-08-21T18:02:52.249Z` (the default;
            /// the exporter's form for date attributes).
            case rfc3339
            /// Seconds since 1970-01-01T00:00:00Z, an integer when whole.
            case epochSeconds
            /// Milliseconds since 1970-01-01T00:00:00Z, an integer when whole.
            case epochMilliseconds
            /// Your conversion.
            case custom(@Sendable (Date) throws -> JSONValue)
        }

        /// What nil optionals become; default ``NilPolicy/null``.
        public var nilPolicy: NilPolicy
        /// How dates are written; default ``DateStrategy/rfc3339``.
        public var dateStrategy: DateStrategy
        /// The transformers `write(_:to:using: "name")` finds by name; default
        /// ``JSONValueTransformerRegistry/standard``.
        public var transformers: JSONValueTransformerRegistry

        /// The deepest nesting of models written (default 512); deeper is
        /// `.depthLimitExceeded`, which is how a cycle of class instances ends.
        public var maximumDepth: Int
        /// Makes the `JSONEncoder` for `Encodable` leaf values (a fresh one per value).
        /// Default: a `JSONEncoder` with `.sortedKeys`, so output is reproducible
        /// (`JSONEncoder` otherwise orders keys by hash).
        public var makeEncoder: @Sendable () -> JSONEncoder

        /// Options with the defaults: nil as `null`, RFC 3339 dates, the standard
        /// transformers, a default `JSONEncoder`.
        public init(nilPolicy: NilPolicy = .null, dateStrategy: DateStrategy = .rfc3339,
                    transformers: JSONValueTransformerRegistry = .standard,
                    maximumDepth: Int = 512,
                    makeEncoder: @escaping @Sendable () -> JSONEncoder = JSONWriteMap.Options.sortedKeysEncoder) {
            self.nilPolicy = nilPolicy
            self.dateStrategy = dateStrategy
            self.transformers = transformers
            self.maximumDepth = maximumDepth
            self.makeEncoder = makeEncoder
        }

        /// A `JSONEncoder` writing keys in sorted order (the default ``makeEncoder``).
        @Sendable public static func sortedKeysEncoder() -> JSONEncoder {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return encoder
        }
    }
}
