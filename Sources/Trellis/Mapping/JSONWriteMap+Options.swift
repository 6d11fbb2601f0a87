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
        /// Makes the encoder for `Encodable` leaf values (a fresh one per value). Default:
        /// a `TrellisJSONEncoder` with `.sortedKeys` (reproducible output), which encodes
        /// the leaf straight into the tree, with `JSONEncoder`'s results.
        public var makeCodableEncoder: @Sendable () -> TrellisJSONEncoder
        /// A Foundation `JSONEncoder` for `Encodable` leaf values instead of
        /// ``makeCodableEncoder`` (its text is then read back). Setting it chooses
        /// Foundation's encoder; reading it when unset gives ``sortedKeysEncoder()``.
        public var makeEncoder: @Sendable () -> JSONEncoder {
            get { foundationEncoder ?? JSONWriteMap.Options.sortedKeysEncoder }
            set { foundationEncoder = newValue }
        }
        /// The Foundation encoder chosen through ``makeEncoder``, nil for the default.
        var foundationEncoder: (@Sendable () -> JSONEncoder)?

        /// Options with the defaults: nil as `null`, RFC 3339 dates, the standard
        /// transformers, a `TrellisJSONEncoder` with sorted keys (`makeEncoder`, when
        /// given, chooses a Foundation `JSONEncoder` instead).
        public init(
            nilPolicy: NilPolicy = .null, dateStrategy: DateStrategy = .rfc3339,
            transformers: JSONValueTransformerRegistry = .standard,
            maximumDepth: Int = 512,
            makeEncoder: (@Sendable () -> JSONEncoder)? = nil,
            makeCodableEncoder: @escaping @Sendable () -> TrellisJSONEncoder = JSONWriteMap.Options.sortedKeysCodableEncoder
        ) {
            self.nilPolicy = nilPolicy
            self.dateStrategy = dateStrategy
            self.transformers = transformers
            self.maximumDepth = maximumDepth
            foundationEncoder = makeEncoder
            self.makeCodableEncoder = makeCodableEncoder
        }

        /// A `TrellisJSONEncoder` writing keys in sorted order (the default ``makeCodableEncoder``).
        @Sendable public static func sortedKeysCodableEncoder() -> TrellisJSONEncoder {
            let encoder = TrellisJSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return encoder
        }

        /// A `JSONEncoder` writing keys in sorted order (the default ``makeEncoder``).
        @Sendable public static func sortedKeysEncoder() -> JSONEncoder {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return encoder
        }
    }
}
