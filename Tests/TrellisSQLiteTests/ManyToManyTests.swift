import Foundation
import Testing
import Trellis
import TrellisTestSupport

@testable import TrellisSQLite

@Suite struct ManyToManyTests {
    /// Song (declared first) ↔ Playlist, where Playlist.songs is ordered (so it owns the table);
    /// Character.powers ↔ Power.characters, both unordered (Character is declared first).
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Song", attributes: [AttributeDescription(name: "title", type: .string)],
                relationships: [
                    RelationshipDescription(name: "playlists", destinationEntity: "Playlist", inverseName: "songs", isToMany: true)
                ], userInfo: ["identityAttributes": "title"]),
            EntityDescription(
                name: "Playlist", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(name: "songs", destinationEntity: "Song", inverseName: "playlists", isToMany: true, isOrdered: true)
                ], userInfo: ["identityAttributes": "name"]),
            EntityDescription(
                name: "Character", attributes: [AttributeDescription(name: "id", type: .integer64)],
                relationships: [
                    RelationshipDescription(name: "powers", destinationEntity: "Power", inverseName: "characters", isToMany: true)
                ], userInfo: ["identityAttributes": "id"]),
            EntityDescription(
                name: "Power", attributes: [AttributeDescription(name: "id", type: .integer64)],
                relationships: [
                    RelationshipDescription(name: "characters", destinationEntity: "Character", inverseName: "powers", isToMany: true)
                ], userInfo: ["identityAttributes": "id"]),
        ])
    }

    func id(_ entity: String, _ pk: Int64) -> ObjectID { ObjectID(entityName: entity, primaryKey: pk) }

    @Test(arguments: StoreKind.persistent)
    func bothSidesShareOneJoinTable(kind: StoreKind) throws {
        let test = try kind.makeStore(model: try Self.model())
        let store = test.store
        if kind == .sqlite {  // the PostgreSQL DDL: PostgresSchemaTests
            #expect(
                try test.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map { $0[0] ?? "" }
                    == ["Character", "Character.powers", "Playlist", "Playlist.songs", "Power", "Song", "trellis_metadata"])
            #expect(
                try test.rows("SELECT sql FROM sqlite_master WHERE name = 'Playlist.songs'") == [
                    [
                        #"""
                        CREATE TABLE "Playlist.songs" (
                          "source" INTEGER NOT NULL REFERENCES "Playlist"("_pk") ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
                          "destination" INTEGER NOT NULL,
                          "position" INTEGER NOT NULL,
                          PRIMARY KEY ("source", "destination")
                        ) WITHOUT ROWID
                        """#
                    ]
                ])
            #expect(
                try test.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%(destination)' ORDER BY name")
                    == [["Character.powers(destination)"], ["Playlist.songs(destination)"]])

        }

        // New objects on both sides, each listing the other: every link is stored once.
        let ids = try store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(
                        id: tid("Character", 1), isPlaceholder: false, attributes: [.integer(1)],
                        relationships: [[tid("Power", 3), tid("Power", 4)]]),
                    ObjectSnapshot(id: tid("Character", 2), isPlaceholder: false, attributes: [.integer(2)], relationships: [[tid("Power", 3)]]),
                    ObjectSnapshot(
                        id: tid("Power", 3), isPlaceholder: false, attributes: [.integer(30)],
                        relationships: [[tid("Character", 1), tid("Character", 2)]]),
                    ObjectSnapshot(id: tid("Power", 4), isPlaceholder: false, attributes: [.integer(40)], relationships: [[tid("Character", 1)]]),
                ]))
        }
        #expect(ids.count == 4)
        #expect(
            try test.rows(#"SELECT "source", "destination" FROM "Character.powers" ORDER BY 1, 2"#)
                == [["1", "1"], ["1", "2"], ["2", "1"]])
        let powers = try store.read { try $0.fetch(entity: "Power", matching: nil) }
        #expect(powers.map(\.relationships) == [[[id("Character", 1), id("Character", 2)]], [[id("Character", 1)]]])

        // Changing the inverse side directly (Power 2 now has characters 2 only) rewrites its links;
        // the owning side sees it.
        _ = try store.write {
            try $0.apply(
                ChangeSet(updated: [
                    ObjectChange(id: id("Power", 2), relationships: [RelationshipChange(index: 0, destinations: [id("Character", 2)])])
                ]))
        }
        #expect(
            try test.rows(#"SELECT "source", "destination" FROM "Character.powers" ORDER BY 1, 2"#)
                == [["1", "1"], ["2", "1"], ["2", "2"]])
        let characters = try store.read { try $0.fetch(entity: "Character", identities: [[.integer(1)], [.integer(2)]]) }
        #expect(
            characters.sorted { $0.id < $1.id }.map(\.relationships)
                == [[[id("Power", 1)]], [[id("Power", 1), id("Power", 2)]]])

        // Deleting either side removes its links (the foreign key on "source" cascades; the store
        // deletes the links of deleted destinations).
        _ = try store.write { try $0.apply(ChangeSet(deleted: [id("Power", 1)])) }
        #expect(try test.rows(#"SELECT "source", "destination" FROM "Character.powers" ORDER BY 1, 2"#) == [["2", "2"]])
        _ = try store.write { try $0.apply(ChangeSet(deleted: [id("Character", 2)])) }
        #expect(try test.rows(#"SELECT count(*) FROM "Character.powers""#) == [["0"]])
    }

    @Test(arguments: StoreKind.persistent)
    func linksOfNewObjectsAreWrittenSixtyFourRowsAtATimeExactly(kind: StoreKind) throws {
        let test = try kind.makeStore(model: try Self.model())
        let store = test.store
        // 100 characters × 3 powers = 300 links: four full statements and a remainder of 44.
        var inserted: [ObjectSnapshot] = []
        for p in Int64(1)...5 {
            inserted.append(ObjectSnapshot(id: tid("Power", 1000 + p), isPlaceholder: false, attributes: [.integer(p)], relationships: [[]]))
        }
        var expected: [[String?]] = []
        for c in Int64(1)...100 {
            let powers: [Int64] = [c % 5 + 1, (c + 1) % 5 + 1, (c + 2) % 5 + 1]
            let destinations: [ObjectID] = powers.map { tid("Power", 1000 + $0) }
            inserted.append(
                ObjectSnapshot(
                    id: tid("Character", c), isPlaceholder: false, attributes: [.integer(c)],
                    relationships: [destinations]))
            for p in powers.sorted() { expected.append([String(c), String(p)]) }
        }
        // An ordered relationship of 70 songs: positions 0…69 across two statements.
        for n in Int64(1)...70 {
            inserted.append(ObjectSnapshot(id: tid("Song", n), isPlaceholder: false, attributes: [.string("s\(n)")], relationships: [[]]))
        }
        let songIDs: [ObjectID] = (Int64(1)...70).reversed().map { tid("Song", $0) }
        inserted.append(
            ObjectSnapshot(
                id: tid("Playlist", 1), isPlaceholder: false, attributes: [.string("all")],
                relationships: [songIDs]))
        _ = try store.write { try $0.apply(ChangeSet(inserted: inserted)) }
        let links = try test.rows(
            #"SELECT c."id", p."id" FROM "Character.powers" j JOIN "Character" c ON c."_pk" = j."source" "#
                + #"JOIN "Power" p ON p."_pk" = j."destination" ORDER BY c."id", p."id""#)
        #expect(links.count == 300)
        #expect(links == expected)
        let songs = try test.rows(
            #"SELECT s."title", j."position" FROM "Playlist.songs" j JOIN "Song" s ON s."_pk" = j."destination" "#
                + #"ORDER BY j."position""#)
        let expectedSongs: [[String?]] = (0..<70).map { (i: Int) -> [String?] in ["s\(70 - i)", String(i)] }
        #expect(songs == expectedSongs)
    }

    @Test(arguments: StoreKind.persistent)
    func aLinkWrittenByBothSidesOfOneChangeSetIsStoredOnce(kind: StoreKind) throws {
        let test = try kind.makeStore(model: try Self.model())
        let store = test.store
        // The character has a permanent ID; the new power's side leaves the link to it.
        _ = try store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(id: id("Character", 500), isPlaceholder: false, attributes: [.integer(5)], relationships: [[tid("Power", 3)]]),
                    ObjectSnapshot(id: tid("Power", 3), isPlaceholder: false, attributes: [.integer(30)], relationships: [[id("Character", 500)]]),
                ]))
        }
        #expect(try test.rows(#"SELECT "source", "destination" FROM "Character.powers""#) == [["500", "1"]])
    }

    /// The new inverse-side object comes first and lists a new owning-side object with a
    /// permanent ID: the link is still written once, by the owning side (it used to be
    /// written by both, and the second insert failed on the join table's primary key).
    @Test(arguments: StoreKind.persistent)
    func aNewInverseSideObjectListedFirstLeavesTheLinkToItsNewOwner(kind: StoreKind) throws {
        let test = try kind.makeStore(model: try Self.model())
        let store = test.store
        _ = try store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(id: tid("Power", 3), isPlaceholder: false, attributes: [.integer(30)], relationships: [[id("Character", 500)]]),
                    ObjectSnapshot(id: id("Power", 70), isPlaceholder: false, attributes: [.integer(70)], relationships: [[id("Character", 500)]]),
                    ObjectSnapshot(
                        id: id("Character", 500), isPlaceholder: false, attributes: [.integer(5)],
                        relationships: [[tid("Power", 3), id("Power", 70)]]),
                ]))
        }
        #expect(try test.rows(#"SELECT "source", "destination" FROM "Character.powers" ORDER BY 2"#) == [["500", "70"], ["500", "71"]])
        let character = try store.read { try $0.fetch(entity: "Character", identities: [[.integer(5)]]) }
        #expect(character.first?.relationships == [[id("Power", 70), id("Power", 71)]])

        // Ordered: the playlist's order, not the order the songs were inserted in.
        _ = try store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(id: tid("Song", 1), isPlaceholder: false, attributes: [.string("a")], relationships: [[id("Playlist", 9)]]),
                    ObjectSnapshot(id: id("Song", 40), isPlaceholder: false, attributes: [.string("b")], relationships: [[id("Playlist", 9)]]),
                    ObjectSnapshot(
                        id: id("Playlist", 9), isPlaceholder: false, attributes: [.string("mix")],
                        relationships: [[id("Song", 40), tid("Song", 1)]]),
                ]))
        }
        #expect(
            try test.rows(#"SELECT "source", "destination", "position" FROM "Playlist.songs" ORDER BY "position""#)
                == [["9", "40", "0"], ["9", "41", "1"]])
    }

    @Test(arguments: StoreKind.persistent)
    func theOrderedSideOwnsPositionsAndTheInverseSideAppends(kind: StoreKind) throws {
        let test = try kind.makeStore(model: try Self.model())
        let store = test.store
        _ = try store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(id: tid("Song", 1), isPlaceholder: false, attributes: [.string("a")], relationships: [[tid("Playlist", 4)]]),
                    ObjectSnapshot(id: tid("Song", 2), isPlaceholder: false, attributes: [.string("b")], relationships: [[tid("Playlist", 4)]]),
                    ObjectSnapshot(id: tid("Song", 3), isPlaceholder: false, attributes: [.string("c")], relationships: [[]]),
                    ObjectSnapshot(
                        id: tid("Playlist", 4), isPlaceholder: false, attributes: [.string("mix")],
                        relationships: [[tid("Song", 2), tid("Song", 1)]]),
                ]))
        }
        #expect(try test.rows(#"SELECT "destination", "position" FROM "Playlist.songs" ORDER BY "position""#) == [["2", "0"], ["1", "1"]])
        // Song c joins the playlist from its own (unordered) side: appended at the end.
        _ = try store.write {
            try $0.apply(
                ChangeSet(updated: [
                    ObjectChange(id: id("Song", 3), relationships: [RelationshipChange(index: 0, destinations: [id("Playlist", 1)])])
                ]))
        }
        let playlist = try store.read { try $0.fetch(entity: "Playlist", identities: [[.string("mix")]]) }
        #expect(playlist.first?.relationships == [[id("Song", 2), id("Song", 1), id("Song", 3)]])
        let songs = try store.read { try $0.fetch(entity: "Song", matching: nil) }
        #expect(songs.map(\.relationships) == [[[id("Playlist", 1)]], [[id("Playlist", 1)]], [[id("Playlist", 1)]]])
    }
}

@Suite struct DerivedLinksCacheTests {
    func id(_ entity: String, _ pk: Int64) -> ObjectID { ObjectID(entityName: entity, primaryKey: pk) }

    /// Within one write session, a fetch after `apply` sees the writes, whether the inverse
    /// to-many was read before (and cached) or not.
    @Test(arguments: StoreKind.persistent)
    func inverseToManysStayInStepWithWritesInOneSession(kind: StoreKind) throws {
        let test = try kind.makeStore(model: try charactersModel())
        let store = test.store
        let manyToManyStore = try kind.makeStore(model: try ManyToManyTests.model())
        let manyToMany = manyToManyStore.store
        try store.write { session in
            _ = try session.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(id: tid("Publisher", 1), isPlaceholder: false, attributes: [.string("p"), nil], relationships: [[]]),
                    ObjectSnapshot(id: tid("Publisher", 2), isPlaceholder: false, attributes: [.string("q"), nil], relationships: [[]]),
                    ObjectSnapshot(
                        id: tid("Character", 3), isPlaceholder: false, attributes: [.string("a"), nil, nil, nil, nil, nil],
                        relationships: [[], [tid("Publisher", 1)]]),
                ]))
            let publishers = { try session.fetch(entity: "Publisher", matching: nil).map { $0.relationships[0] } }
            #expect(try publishers() == [[id("Character", 1)], []])
            _ = try session.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(
                        id: tid("Character", 4), isPlaceholder: false, attributes: [.string("b"), nil, nil, nil, nil, nil],
                        relationships: [[], [id("Publisher", 1)]])
                ]))
            #expect(try publishers() == [[id("Character", 1), id("Character", 2)], []])
            _ = try session.apply(
                ChangeSet(updated: [
                    ObjectChange(id: id("Character", 1), relationships: [RelationshipChange(index: 1, destinations: [id("Publisher", 2)])])
                ]))
            #expect(try publishers() == [[id("Character", 2)], [id("Character", 1)]])
            _ = try session.apply(ChangeSet(deleted: [id("Character", 2)]))
            #expect(try publishers() == [[], [id("Character", 1)]])
        }
        try manyToMany.write { session in
            _ = try session.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(id: tid("Power", 1), isPlaceholder: false, attributes: [.integer(10)], relationships: [[]]),
                    ObjectSnapshot(id: tid("Character", 2), isPlaceholder: false, attributes: [.integer(1)], relationships: [[tid("Power", 1)]]),
                ]))
            let powers = { try session.fetch(entity: "Power", identities: [[.integer(10)]]).map { $0.relationships[0] } }
            #expect(try powers() == [[id("Character", 1)]])
            _ = try session.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(id: tid("Character", 3), isPlaceholder: false, attributes: [.integer(2)], relationships: [[id("Power", 1)]])
                ]))
            #expect(try powers() == [[id("Character", 1), id("Character", 2)]])
            _ = try session.apply(
                ChangeSet(updated: [
                    ObjectChange(id: id("Character", 1), relationships: [RelationshipChange(index: 0, destinations: [])])
                ]))
            #expect(try powers() == [[id("Character", 2)]])
        }
        #expect(try manyToMany.read { try $0.fetch(entity: "Power", matching: nil) }.map(\.relationships) == [[[id("Character", 2)]]])
    }
}

@Suite struct OrderedOneToManyTests {
    func id(_ entity: String, _ pk: Int64) -> ObjectID { ObjectID(entityName: entity, primaryKey: pk) }

    /// Album.tracks (ordered) ↔ Track.album (to-one).
    static func albumModel() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Album", attributes: [AttributeDescription(name: "title", type: .string)],
                relationships: [
                    RelationshipDescription(name: "tracks", destinationEntity: "Track", inverseName: "album", isToMany: true, isOrdered: true)
                ]),
            EntityDescription(
                name: "Track", attributes: [AttributeDescription(name: "title", type: .string)],
                relationships: [
                    RelationshipDescription(name: "album", destinationEntity: "Album", inverseName: "tracks")
                ]),
        ])
    }

    /// Album.tracks (ordered) ↔ Track.album (to-one): membership follows the foreign key, which
    /// the context may change alone; the join table keeps the order.
    @Test(arguments: StoreKind.persistent)
    func membershipFollowsTheForeignKeyAndOrderTheJoinTable(kind: StoreKind) throws {
        let test = try kind.makeStore(model: try Self.albumModel())
        let store = test.store
        _ = try store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(id: tid("Album", 1), isPlaceholder: false, attributes: [.string("A")], relationships: [[tid("Track", 3), tid("Track", 2)]]),
                    ObjectSnapshot(id: tid("Album", 4), isPlaceholder: false, attributes: [.string("B")], relationships: [[]]),
                    ObjectSnapshot(id: tid("Track", 2), isPlaceholder: false, attributes: [.string("one")], relationships: [[tid("Album", 1)]]),
                    ObjectSnapshot(id: tid("Track", 3), isPlaceholder: false, attributes: [.string("two")], relationships: [[tid("Album", 1)]]),
                ]))
        }
        let tracks = { try store.read { try $0.fetch(entity: "Album", matching: nil) }.map { $0.relationships[0] } }
        #expect(try tracks() == [[id("Track", 2), id("Track", 1)], []])
        // A new track joins album A through its to-one only: it comes last.
        _ = try store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(id: tid("Track", 5), isPlaceholder: false, attributes: [.string("three")], relationships: [[id("Album", 1)]])
                ]))
        }
        #expect(try tracks() == [[id("Track", 2), id("Track", 1), id("Track", 3)], []])
        // Track 1 moves to album B through its to-one only.
        _ = try store.write {
            try $0.apply(
                ChangeSet(updated: [
                    ObjectChange(id: id("Track", 1), relationships: [RelationshipChange(index: 0, destinations: [id("Album", 2)])])
                ]))
        }
        #expect(try tracks() == [[id("Track", 2), id("Track", 3)], [id("Track", 1)]])
        // Reordering the ordered side rewrites the positions.
        _ = try store.write {
            try $0.apply(
                ChangeSet(updated: [
                    ObjectChange(id: id("Album", 1), relationships: [RelationshipChange(index: 0, destinations: [id("Track", 3), id("Track", 2)])])
                ]))
        }
        #expect(try tracks() == [[id("Track", 3), id("Track", 2)], [id("Track", 1)]])
        #expect(
            try test.rows(#"SELECT "source", "destination", "position" FROM "Album.tracks" ORDER BY 1, 3"#)
                == [["1", "3", "0"], ["1", "2", "1"]])
    }

    /// A track that leaves an album through its to-one alone leaves no row in the album's
    /// order table: moving back, it comes after the tracks the order lists, as any track
    /// joining through its to-one (those come by key).
    @Test(arguments: StoreKind.persistent)
    func aTrackMovingAwayAndBackComesLast(kind: StoreKind) throws {
        let test = try kind.makeStore(model: try Self.albumModel())
        let store = test.store
        _ = try store.write {
            try $0.apply(
                ChangeSet(inserted: [
                    ObjectSnapshot(
                        id: tid("Album", 1), isPlaceholder: false, attributes: [.string("A")],
                        relationships: [[tid("Track", 4), tid("Track", 2), tid("Track", 3)]]),
                    ObjectSnapshot(id: tid("Album", 5), isPlaceholder: false, attributes: [.string("B")], relationships: [[]]),
                    ObjectSnapshot(id: tid("Track", 2), isPlaceholder: false, attributes: [.string("one")], relationships: [[tid("Album", 1)]]),
                    ObjectSnapshot(id: tid("Track", 3), isPlaceholder: false, attributes: [.string("two")], relationships: [[tid("Album", 1)]]),
                    ObjectSnapshot(id: tid("Track", 4), isPlaceholder: false, attributes: [.string("three")], relationships: [[tid("Album", 1)]]),
                ]))
        }
        let tracks = { try store.read { try $0.fetch(entity: "Album", matching: nil) }.map { $0.relationships[0] } }
        let order = { try test.rows(#"SELECT "source", "destination", "position" FROM "Album.tracks" ORDER BY 1, 3"#) }
        #expect(try tracks() == [[id("Track", 3), id("Track", 1), id("Track", 2)], []])
        // Track 1 ("one") moves to album B and back, through its to-one only.
        _ = try store.write {
            try $0.apply(
                ChangeSet(updated: [
                    ObjectChange(id: id("Track", 1), relationships: [RelationshipChange(index: 0, destinations: [id("Album", 2)])])
                ]))
        }
        #expect(try order() == [["1", "3", "0"], ["1", "2", "2"]])
        _ = try store.write {
            try $0.apply(
                ChangeSet(updated: [
                    ObjectChange(id: id("Track", 1), relationships: [RelationshipChange(index: 0, destinations: [id("Album", 1)])])
                ]))
        }
        #expect(try tracks() == [[id("Track", 3), id("Track", 2), id("Track", 1)], []])
        // Leaving every album (to-one cleared) removes its rows too.
        _ = try store.write {
            try $0.apply(
                ChangeSet(updated: [
                    ObjectChange(id: id("Track", 3), relationships: [RelationshipChange(index: 0, destinations: [])])
                ]))
        }
        #expect(try order() == [["1", "2", "2"]])
        #expect(try tracks() == [[id("Track", 2), id("Track", 1)], []])
        // The album listing a track in the same change set as the track's move keeps the album's row.
        _ = try store.write {
            try $0.apply(
                ChangeSet(updated: [
                    ObjectChange(id: id("Album", 2), relationships: [RelationshipChange(index: 0, destinations: [id("Track", 2)])]),
                    ObjectChange(id: id("Track", 2), relationships: [RelationshipChange(index: 0, destinations: [id("Album", 2)])]),
                ]))
        }
        #expect(try order() == [["2", "2", "0"]])
        #expect(try tracks() == [[id("Track", 1)], [id("Track", 2)]])
    }
}
