/// The options several commands take, declared once (see CommandSpec.swift). A command
/// whose help says more of one (`--store`: created when missing) lists
/// `CommonOptions.store.with(help: …)`: the name, type and default stay these.
enum CommonOptions {
    /// `--model <model>` (required).
    static let model = OptionKey<String>(
        "--model", valueName: "model",
        help: "The model: a Trellis JSON model file, a .xcdatamodeld, a .xcdatamodel, or a store (its recorded model).")

    /// `--model <model>` for the commands that read a store (`export`, `count`, `watch`):
    /// optional, the model the store records by default (``ModelLoading/load(_:orRecordedIn:bindings:environment:)``).
    static let storeModel = OptionKey<String?>(
        "--model", valueName: "model",
        help: "The model: a Trellis JSON model file, a .xcdatamodeld, a .xcdatamodel, or a store (its recorded model). "
            + "Default: the model the store records (every import records one).")

    /// `--bindings <file>`, for every command that takes a model.
    static let bindings = OptionKey<String?>(
        "--bindings", valueName: "file",
        help: "A JSON bindings section for the names the model uses (needed by Core Data models that name any).")

    /// `--entity <entity>` (required).
    static let entity = OptionKey<String>("--entity", valueName: "entity", help: "The entity.")

    /// `--store <path>`: the SQLite store file, or a PostgreSQL connection string
    /// (`postgresql://user@host:port/dbname?schema=…`, or `host=… dbname=…`; see docs/PostgresStore.md).
    static let store = OptionKey<String>(
        "--store", valueName: "path",
        help: "The store: an SQLite file, or a PostgreSQL connection string (postgresql://user@host/dbname).",
        default: "trellis.sqlite")

    /// `--busy-timeout <seconds>`, for the commands that open a store: how long to wait for
    /// another process's write lock. 60 s by default, longer than the library's 5 s
    /// (``SQLiteStore/Configuration``), because a second `trellis import` must outwait a
    /// whole first import (a transaction that lasts as long as its input takes to read),
    /// not one statement.
    static let busyTimeout = OptionKey<Seconds>(
        "--busy-timeout", valueName: "seconds",
        help: "How long to wait while another process writes to the store before failing (0: fail at once).",
        default: "60")
}
