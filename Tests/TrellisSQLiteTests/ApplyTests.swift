import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisSQLite

/// Change sets applied to the stores that keep data (SQLite, PostgreSQL), checked in the
/// rows they leave (SQL both engines read alike, ``TestStore/rows(_:)``).
@Suite struct ApplyTests {
    /// A store with publisher 1, powers 1…3, characters 1 ("a", powers 1 2, publisher 1) and 2 ("b").
    static func seeded(_ kind: StoreKind) throws -> TestStore {
        let test = try kind.makeStore(model: try charactersModel())
        _ = try test.store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(id: tid("Publisher", 1), isPlaceholder: false, attributes: [.string("p"), .string("DC")], relationships: [[]]),
                    ObjectSnapshot(id: tid("Power", 2), isPlaceholder: false, attributes: [.string("w1"), .string("Flight")], relationships: []),
                    ObjectSnapshot(id: tid("Power", 3), isPlaceholder: false, attributes: [.string("w2"), .string("Speed")], relationships: []),
                    ObjectSnapshot(id: tid("Power", 4), isPlaceholder: false, attributes: [.string("w3"), .string("Magic")], relationships: []),
                    ObjectSnapshot(
                        id: tid("Character", 5), isPlaceholder: false,
                        attributes: [.string("a"), .string("Ann"), .string("Ann A"), nil, .double(1), .bool(true)],
                        relationships: [[tid("Power", 2), tid("Power", 3)], [tid("Publisher", 1)]]),
                    ObjectSnapshot(
                        id: tid("Character", 6), isPlaceholder: false,
                        attributes: [.string("b"), .string("Bob"), nil, nil, nil, nil], relationships: [[], []]),
                ]))
        }
        return test
    }

    func character(_ pk: Int64) -> ObjectID { ObjectID(entityName: "Character", primaryKey: pk) }
    func power(_ pk: Int64) -> ObjectID { ObjectID(entityName: "Power", primaryKey: pk) }

    /// SQLite: the triggers and the statement cache show what is written (the PostgreSQL
    /// store's own version is `PostgresWriteTests`).
    @Test func updatesWriteOnlyTheChangedColumns() throws {
        let test = try Self.seeded(.sqlite)
        let store = try #require(test.store as? SQLiteStore)
        try store.execute(
            """
            CREATE TABLE "log" ("column" TEXT);
            CREATE TRIGGER "log name" AFTER UPDATE OF "name" ON "Character" BEGIN INSERT INTO "log" VALUES ('name'); END;
            CREATE TRIGGER "log realName" AFTER UPDATE OF "realName" ON "Character" BEGIN INSERT INTO "log" VALUES ('realName'); END;
            CREATE TRIGGER "log rating" AFTER UPDATE OF "rating" ON "Character" BEGIN INSERT INTO "log" VALUES ('rating'); END;
            CREATE TRIGGER "log id" AFTER UPDATE OF "id" ON "Character" BEGIN INSERT INTO "log" VALUES ('id'); END;
            CREATE TRIGGER "log publisher" AFTER UPDATE OF "publisher" ON "Character" BEGIN INSERT INTO "log" VALUES ('publisher'); END;
            CREATE TRIGGER "log powers" AFTER INSERT ON "Character.powers" BEGIN INSERT INTO "log" VALUES ('powers'); END;
            """)
        let before = try store.withConnection { $0.totalChanges }
        _ = try store.write { try $0.apply(ChangeSet()) }
        _ = try store.write { try $0.apply(ChangeSet(updated: [ObjectChange(id: character(1))])) }
        #expect(try store.withConnection { $0.totalChanges } == before)  // nothing changed, nothing written

        _ = try store.write {
            try $0.apply(
                ChangeSet(updated: [
                    ObjectChange(id: character(1), attributes: [AttributeChange(index: 1, value: .string("Anne"))]),
                    ObjectChange(
                        id: character(2),
                        attributes: [
                            AttributeChange(index: 4, value: .double(2.5)),
                            AttributeChange(index: 2, value: .string("Bob B")),
                        ]),
                ]))
        }
        #expect(try store.rows(#"SELECT "column" FROM "log" ORDER BY rowid"#) == [["name"], ["rating"], ["realName"]])
        #expect(
            try store.rows(#"SELECT "name", "realName", "rating", "_placeholder" FROM "Character" ORDER BY "_pk""#)
                == [["Anne", "Ann A", "1.0", "0"], ["Bob", "Bob B", "2.5", "0"]])
        let cached = try store.withConnection { $0.cachedSQL.filter { $0.hasPrefix("UPDATE") }.sorted() }
        #expect(
            cached == [
                #"UPDATE "Character" SET "name" = ?2 WHERE "_pk" = ?1"#,
                #"UPDATE "Character" SET "rating" = ?2, "realName" = ?3 WHERE "_pk" = ?1"#,
            ])
        // The to-one only, then the placeholder flag only.
        _ = try store.write {
            try $0.apply(
                ChangeSet(updated: [
                    ObjectChange(
                        id: character(2), relationships: [RelationshipChange(index: 1, destinations: [ObjectID(entityName: "Publisher", primaryKey: 1)])]),
                    ObjectChange(id: character(1), isPlaceholder: true),
                ]))
        }
        #expect(try store.rows(#"SELECT "column" FROM "log" ORDER BY rowid"#) == [["name"], ["rating"], ["realName"], ["publisher"]])
        #expect(try store.rows(#"SELECT "_placeholder", "publisher" FROM "Character" ORDER BY "_pk""#) == [["1", "1"], ["0", "1"]])
    }

    @Test(arguments: StoreKind.persistent)
    func joinRowsAreReplacedAndOrderedPositionsKept(kind: StoreKind) throws {
        let test = try Self.seeded(kind)
        let store = test.store
        _ = try store.write {
            try $0.apply(
                ChangeSet(updated: [
                    ObjectChange(id: character(1), relationships: [RelationshipChange(index: 0, destinations: [power(3), power(2)])]),
                    ObjectChange(id: character(2), relationships: [RelationshipChange(index: 0, destinations: [power(1), power(1)])]),
                ]))
        }
        #expect(
            try test.rows(#"SELECT "source", "destination" FROM "Character.powers" ORDER BY 1, 2"#)
                == [["1", "2"], ["1", "3"], ["2", "1"]])
        _ = try store.write {
            try $0.apply(
                ChangeSet(updated: [
                    ObjectChange(id: character(1), relationships: [RelationshipChange(index: 0, destinations: [])])
                ]))
        }
        #expect(try test.rows(#"SELECT "source", "destination" FROM "Character.powers" ORDER BY 1, 2"#) == [["2", "1"]])

        // Ordered: positions follow the new order.
        let seatStore = try kind.makeStore(model: try animalsModel())
        let seats = seatStore.store
        let ids = try seats.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(id: tid("Tag", 1), isPlaceholder: false, attributes: [.string("x")], relationships: []),
                    ObjectSnapshot(id: tid("Tag", 2), isPlaceholder: false, attributes: [.string("y")], relationships: []),
                    ObjectSnapshot(id: tid("Tag", 3), isPlaceholder: false, attributes: [.string("z")], relationships: []),
                    ObjectSnapshot(
                        id: tid("Seat", 4), isPlaceholder: false, attributes: [.string("A"), .integer(1)],
                        relationships: [[tid("Tag", 3), tid("Tag", 1), tid("Tag", 2)]]),
                ]))
        }
        let seat = try #require(ids[tid("Seat", 4)])
        #expect(try seatStore.rows(#"SELECT "destination", "position" FROM "Seat.tags" ORDER BY "position""#) == [["3", "0"], ["1", "1"], ["2", "2"]])
        let tag = { (pk: Int64) in ObjectID(entityName: "Tag", primaryKey: pk) }
        _ = try seats.write {
            try $0.apply(
                ChangeSet(updated: [
                    ObjectChange(id: seat, relationships: [RelationshipChange(index: 0, destinations: [tag(2), tag(3)])])
                ]))
        }
        #expect(try seatStore.rows(#"SELECT "destination", "position" FROM "Seat.tags" ORDER BY "position""#) == [["2", "0"], ["3", "1"]])
        #expect(try seats.read { try $0.fetch(ids: [seat]) }.first?.relationships == [[tag(2), tag(3)]])
    }

    @Test(arguments: StoreKind.persistent)
    func temporaryIDsBecomePermanentIncludingReferencesBetweenNewObjects(kind: StoreKind) throws {
        let test = try Self.seeded(kind)
        let store = test.store
        // The character refers to a publisher and a power that come later in the change set.
        let ids = try store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(
                        id: tid("Character", 10), isPlaceholder: false,
                        attributes: [.string("c"), .string("Cy"), nil, nil, nil, nil],
                        relationships: [[power(1), tid("Power", 12)], [tid("Publisher", 11)]]),
                    ObjectSnapshot(id: tid("Publisher", 11), isPlaceholder: false, attributes: [.string("q"), .string("Image")], relationships: [[]]),
                    ObjectSnapshot(id: tid("Power", 12), isPlaceholder: true, attributes: [.string("w9"), nil], relationships: []),
                ]))
        }
        #expect(
            ids == [
                tid("Character", 10): character(3), tid("Publisher", 11): ObjectID(entityName: "Publisher", primaryKey: 2),
                tid("Power", 12): power(4),
            ])
        #expect(try test.rows(#"SELECT "_pk", "id", "publisher" FROM "Character" WHERE "id" = 'c'"#) == [["3", "c", "2"]])
        #expect(try test.rows(#"SELECT "destination" FROM "Character.powers" WHERE "source" = 3 ORDER BY 1"#) == [["1"], ["4"]])
        #expect(try test.rows(#"SELECT "_placeholder", "name" FROM "Power" WHERE "_pk" = 4"#) == [["1", nil]])
        // A temporary ID the change set does not insert is refused, and nothing is written.
        #expect {
            try store.write {
                try $0.apply(
                    ChangeSet(updated: [
                        ObjectChange(id: character(1), relationships: [RelationshipChange(index: 1, destinations: [tid("Publisher", 99)])])
                    ]))
            }
        } throws: { ($0 as? StoreError)?.code == .unknownObject }
    }

    @Test(arguments: StoreKind.persistent)
    func insertingAStoredIdentityUpdatesThatObjectAndRepointsReferences(kind: StoreKind) throws {
        let test = try Self.seeded(kind)
        let store = test.store
        let ids = try store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    // Refers to the power before it appears; that power's identity "w1" is already stored as Power/1.
                    ObjectSnapshot(
                        id: tid("Character", 20), isPlaceholder: false,
                        attributes: [.string("d"), nil, nil, nil, nil, nil], relationships: [[tid("Power", 21)], []]),
                    ObjectSnapshot(id: tid("Power", 21), isPlaceholder: false, attributes: [.string("w1"), .string("Flying")], relationships: []),
                    // A placeholder for a stored identity leaves the stored object alone.
                    ObjectSnapshot(id: tid("Power", 22), isPlaceholder: true, attributes: [.string("w2"), nil], relationships: []),
                ]))
        }
        #expect(ids[tid("Power", 21)] == power(1))
        #expect(ids[tid("Power", 22)] == power(2))
        #expect(
            try test.rows(#"SELECT "_pk", "id", "name", "_placeholder" FROM "Power" ORDER BY 1"#)
                == [["1", "w1", "Flying", "0"], ["2", "w2", "Speed", "0"], ["3", "w3", "Magic", "0"]])
        #expect(try test.rows(#"SELECT "source", "destination" FROM "Character.powers" WHERE "source" = 3"#) == [["3", "1"]])
    }

    @Test(arguments: StoreKind.persistent)
    func deletesCascadeToLinksAndNullifyForeignKeys(kind: StoreKind) throws {
        let test = try Self.seeded(kind)
        let store = test.store
        _ = try store.write { try $0.apply(ChangeSet(deleted: [power(2), ObjectID(entityName: "Publisher", primaryKey: 1)])) }
        #expect(try test.rows(#"SELECT "source", "destination" FROM "Character.powers""#) == [["1", "1"]])
        #expect(try test.rows(#"SELECT "publisher" FROM "Character" ORDER BY "_pk""#) == [[nil], [nil]])
        _ = try store.write { try $0.apply(ChangeSet(deleted: [character(1)])) }
        #expect(try test.rows(#"SELECT count(*) FROM "Character.powers""#) == [["0"]])
        #expect(try test.rows(#"SELECT "_pk" FROM "Character""#) == [["2"]])
    }

    @Test(arguments: StoreKind.persistent)
    func aThrowingWriteLeavesTheFileUnchanged(kind: StoreKind) throws {
        let test = try Self.seeded(kind)
        let store = test.store
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try store.write { session in
                _ = try session.apply(
                    ChangeSet(
                        inserted: [ObjectSnapshot(id: tid("Power", 1), isPlaceholder: false, attributes: [.string("w4"), nil], relationships: [])],
                        updated: [ObjectChange(id: character(1), attributes: [AttributeChange(index: 1, value: .string("Changed"))])],
                        deleted: [character(2)]))
                #expect(try session.count(entity: "Power", matching: nil) == 4)
                throw Stop()
            }
        }
        #expect(try test.rows(#"SELECT count(*) FROM "Power""#) == [["3"]])
        #expect(try test.rows(#"SELECT "_pk", "name" FROM "Character" ORDER BY 1"#) == [["1", "Ann"], ["2", "Bob"]])
        // A foreign key violation surfaces at COMMIT; the transaction is rolled back too.
        #expect {
            try store.write {
                try $0.apply(
                    ChangeSet(updated: [
                        ObjectChange(
                            id: character(2), attributes: [AttributeChange(index: 1, value: .string("Changed"))],
                            relationships: [RelationshipChange(index: 1, destinations: [ObjectID(entityName: "Publisher", primaryKey: 42)])])
                    ]))
            }
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            let code: StoreError.EngineCode = kind == .sqlite ? .sqlite(787, name: "constraint failed") : .sqlState("23503")  // foreign key
            return error.code == .constraintViolation && error.engineCode == code && error.sql == "COMMIT"
                && error.description.contains("\(code); ") && error.description.hasSuffix("SQL: COMMIT)")
        }
        #expect(try test.rows(#"SELECT "name", "publisher" FROM "Character" WHERE "_pk" = 2"#) == [["Bob", nil]])
        // No transaction is left open: the next session works.
        #expect(try store.read { try $0.count(entity: "Character", matching: nil) } == 2)
    }

    @Test(arguments: StoreKind.persistent)
    func constraintErrorsCarryCodeMessageAndSQLButNotValues(kind: StoreKind) throws {
        let test = try Self.seeded(kind)
        let store = test.store
        do {
            _ = try store.write {
                try $0.apply(
                    ChangeSet(updated: [
                        ObjectChange(id: character(2), attributes: [AttributeChange(index: 0, value: .string("a"))])
                    ]))
            }
            Issue.record("expected a constraint violation")
        } catch let error as StoreError {
            #expect(error.code == .constraintViolation)
            switch kind {
            case .postgres:
                let schema = try #require(test.location?.components(separatedBy: "schema=").last)
                #expect(error.message == #"duplicate key value violates unique constraint "Character identity""#)
                let sql =
                    #"UPDATE "\#(schema)"."Character" AS t SET "id" = v.c1 FROM unnest($1::bigint[], $2::text[]) "#
                    + #"AS v(c0, c1) WHERE t."_pk" = v.c0"#
                // The engine's facts as fields (issue 25.6), rendered after the message.
                #expect(error.engineCode == .sqlState("23505"))
                #expect(error.constraint == "Character identity" && error.table == "Character" && error.column == nil)
                #expect(error.sql == sql && error.details == nil)
                #expect(
                    error.description == #"duplicate key value violates unique constraint "Character identity" "#
                        + #"(SQLSTATE 23505; constraint "Character identity"; table "Character"; SQL: \#(sql))"#)
            default:
                #expect(error.message == "UNIQUE constraint failed: Character.id")
                #expect(error.engineCode == .sqlite(2067, name: "constraint failed"))
                #expect(error.sql == #"UPDATE "Character" SET "id" = ?2 WHERE "_pk" = ?1"# && error.constraint == nil && error.details == nil)
                #expect(
                    error.description == "UNIQUE constraint failed: Character.id "
                        + #"(SQLite result code 2067 (constraint failed); SQL: UPDATE "Character" SET "id" = ?2 WHERE "_pk" = ?1)"#)
            }
            #expect(!error.description.contains("\"a\""))
        }
        #expect(try test.rows(#"SELECT "id" FROM "Character" ORDER BY "_pk""#) == [["a"], ["b"]])
    }

    @Test(arguments: StoreKind.persistent)
    func readSessionsRefuseWritesAndSessionsExpire(kind: StoreKind) throws {
        let test = try Self.seeded(kind)
        let store = test.store
        #expect { try store.read { try $0.apply(ChangeSet(deleted: [character(1)])) } } throws: {
            ($0 as? StoreError)?.code == .readOnly
        }
        #expect {
            try store.write { _ in try store.read { _ in () } }
        } throws: { ($0 as? StoreError)?.message.contains("sessions do not nest") == true }
        #expect(try store.read { try $0.count(entity: "Character", matching: nil) } == 2)
        var escaped: (any StoreSession)?
        try store.read { escaped = $0 }
        #expect(throws: StoreError.self) { try escaped?.count(entity: "Character", matching: nil) }
        #expect {
            try store.write { try $0.apply(ChangeSet(updated: [ObjectChange(id: character(9), isPlaceholder: false)])) }
        } throws: { ($0 as? StoreError)?.code == .unknownObject }
    }
}
