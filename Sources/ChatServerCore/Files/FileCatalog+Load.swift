extension FileCatalog {
    /// What a store answers a ``ServerAction/loadFiles(_:_:)`` with: the records, uploads,
    /// interrupted uploads and usages the query names, read from this catalog.
    public func load(_ query: FileQuery) throws -> LoadedFiles {
        var loaded = LoadedFiles()
        for id in query.files {
            if let file = try file(id: id) { loaded.files.append(file) } else { loaded.missingFiles.append(id) }
        }
        for upload in query.uploads {
            let key = SharedFileCatalog.uploadKey(peer: upload.peer, id: upload.id)
            let stored = try file(uploadedBy: upload.peer, id: upload.id)
            if let stored { loaded.files.append(stored) }
            loaded.uploads[key] = .some(stored?.id)
            loaded.partials[key] = .some(try partial(peer: upload.peer, id: upload.id))
        }
        for scope in query.scopes { loaded.usages[scope] = try usage(of: scope, exceptPartial: nil) }
        return loaded
    }
}
