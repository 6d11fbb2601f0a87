import Foundation

/// One row of a store's outbox (`trellis_outbox`): a local change (``ChangeOrigin/local``)
/// waiting to be pushed to the API, recorded in the transaction that made it.
///
/// Values are not copied into the row: ``fields`` names the changed properties, whose values
/// are read from the object when the change is sent. Rows of one object merge while they are
/// ``State/pending`` (the recording rules, applied in the write transaction):
///
/// - update + update: one update, ``fields`` unioned, the older ``base`` kept, and in
///   ``baseValues`` the older value of each field (a field new to the row adds its own);
/// - create + update: still a create, ``fields`` unioned (a create has no ``baseValues``);
/// - create + delete, before the create was ever attempted (``attempts`` 0): the row is removed,
///   nothing is left to push; after an attempt (the server may hold the object): a delete,
///   keeping the create's ``key`` to reconcile with;
/// - update + delete: a delete (``fields`` empty), keeping ``serverIdentity`` and ``base``;
/// - delete, then a new object with the same identity (in the same entity hierarchy): an update
///   of every attribute and relationship of the new object, keeping ``serverIdentity`` and ``base``.
///
/// A row that is ``State/sending`` or ``State/uncertain`` (or ``State/conflict``, or rejected by
/// the server) is never merged into: a later change of its object gets a row of its own, after
/// it in ``sequence`` order. Rows of entities that are not pushable (``PushRules``) are kept as
/// ``State/rejected`` with 0 attempts and merge among themselves by the same rules.
public struct OutboxEntry: Sendable, Hashable {
    /// What the row asks the server to do.
    public enum Operation: String, Sendable, Hashable, CaseIterable {
        case create, update, delete
    }

    /// Where the row is in its life.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Waiting to be sent; the only state later changes merge into.
        case pending
        /// In a request whose response is not recorded yet.
        case sending
        /// A create whose request's outcome is unknown (a timeout, a reset after sending), to be
        /// reconciled by its create key before anything is sent again.
        case uncertain
        /// The server changed the object since ``base``; waits for the conflict policy.
        case conflict
        /// A dead letter: refused by the server (a validation error), or not pushable at all
        /// (``attempts`` 0, ``lastError`` says why). Kept and reported, never dropped.
        case rejected
    }

    /// The row's position in the outbox (1, 2, …, increasing in recording order; merges keep it).
    public var sequence: Int64
    /// The object changed (its entity and primary key in the store). For a delete, the object
    /// no longer exists in the store.
    public var object: ObjectID
    /// The object's identity as the server knows it: a JSON array of the identity attributes'
    /// values (``JSONCoercion/json(from:as:)``: `["1699"]`, `[42]`); nil until the object was
    /// created on the server (a create, or any row of an object whose create is not yet
    /// acknowledged), and for an entity without identity attributes.
    public var serverIdentity: JSONValue?
    public var operation: Operation
    /// The changed attributes and relationships by name, in the entity's order (attributes
    /// first); for a create, the ones holding a value; empty for a delete.
    public var fields: [String]
    /// The server stamp the change was made against: the text of the stamp attribute's stored
    /// value before the change (``PushRules/stampAttributeIndex(_:)``; a date as RFC 3339
    /// text), nil for a create or without a stamp attribute.
    public var base: String?
    /// The stored values of the changed attributes before the row's first change of each, by
    /// attribute name, as JSON (``JSONCoercion/json(from:as:)``: `{"name":"Bruce","rank":3}`;
    /// `null` for an attribute that held no value): what the conflict check and the `merge`
    /// policy compare the server's values with. Empty for a create and a delete's own change;
    /// relationships have no entry. Stored as a JSON object text (``baseValuesText``), nil when
    /// empty; a store made before the column reads every row as empty.
    public var baseValues: [String: JSONValue]
    /// The idempotency key, made when the row is recorded (`X-Parse-Request-Id`, `Idempotency-Key`).
    public var key: UUID
    public var state: State
    /// How many times the row was sent (0 until then).
    public var attempts: Int
    /// The last error the row met (the server's message, or why it is not pushable).
    public var lastError: String?
    /// When the row was recorded (its first change), to the millisecond.
    public var enqueuedAt: Date

    public init(
        sequence: Int64, object: ObjectID, serverIdentity: JSONValue?, operation: Operation, fields: [String],
        base: String?, baseValues: [String: JSONValue] = [:], key: UUID, state: State, attempts: Int = 0, lastError: String? = nil,
        enqueuedAt: Date
    ) {
        self.sequence = sequence
        self.object = object
        self.serverIdentity = serverIdentity
        self.operation = operation
        self.fields = fields
        self.base = base
        self.baseValues = baseValues
        self.key = key
        self.state = state
        self.attempts = attempts
        self.lastError = lastError
        self.enqueuedAt = enqueuedAt
    }

    /// ``fields`` as stored: a JSON array of names (`["name","powers"]`).
    public var fieldsText: String {
        "[" + fields.map(JSONWriter.quoted).joined(separator: ",") + "]"
    }

    /// ``serverIdentity`` as stored (compact JSON), nil when nil.
    public var serverIdentityText: String? {
        serverIdentity.flatMap { try? JSONWriter.string(for: $0) }
    }

    /// ``baseValues`` as stored: a compact JSON object with its keys sorted (`{"name":"Bruce"}`),
    /// nil when empty.
    public var baseValuesText: String? {
        guard !baseValues.isEmpty else { return nil }
        let object = JSONObject(baseValues.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        return try? JSONWriter.string(for: .object(object))
    }

    /// Reads ``baseValuesText`` (nil reads as empty).
    /// - Throws: `StoreError` `.engine` when the text is not a JSON object.
    public static func baseValues(fromText text: String?) throws(StoreError) -> [String: JSONValue] {
        guard let text else { return [:] }
        guard case .object(let object)? = try? JSONReader.parse(text) else {
            throw StoreError(.engine, message: "an outbox row's base values are not a JSON object: \(text.prefix(80))")
        }
        var values: [String: JSONValue] = [:]
        for (key, value) in object { values[key] = value }
        return values
    }

    /// Reads ``fieldsText``.
    /// - Throws: `StoreError` `.engine` when the text is not a JSON array of strings.
    public static func fields(fromText text: String) throws(StoreError) -> [String] {
        guard let array = (try? JSONReader.parse(text))?.arrayValue else {
            throw StoreError(.engine, message: "an outbox row's fields are not a JSON array: \(text.prefix(80))")
        }
        var names: [String] = []
        for element in array {
            guard let name = element.stringValue else {
                throw StoreError(.engine, message: "an outbox row's fields are not a JSON array of names: \(text.prefix(80))")
            }
            names.append(name)
        }
        return names
    }

    /// Reads ``serverIdentityText``.
    /// - Throws: `StoreError` `.engine` when the text is not JSON.
    public static func serverIdentity(fromText text: String?) throws(StoreError) -> JSONValue? {
        guard let text else { return nil }
        guard let value = try? JSONReader.parse(text) else {
            throw StoreError(.engine, message: "an outbox row's server identity is not JSON: \(text.prefix(80))")
        }
        return value
    }

    /// `enqueuedAt` as stored: milliseconds since 1970.
    public var enqueuedAtMilliseconds: Int64 { Int64((enqueuedAt.timeIntervalSince1970 * 1000).rounded()) }

    /// A date from ``enqueuedAtMilliseconds``.
    public static func date(milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
