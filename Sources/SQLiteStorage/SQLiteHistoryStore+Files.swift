import ChatServerCore

/// File records and partial uploads in the history's file (schema version 3), on the history's
/// connection, so a room file's record and its `file` event commit in one transaction.
extension SQLiteHistoryStore: FileCatalog {
    public func storeFile(_ file: StoredFile, event: StoredEvent?, retainPerRoom: Int) throws {
        try statements.begin.run([], doing: "beginning a transaction")
        do {
            try fileStatements.insertFile.run(
                [
                    .text(file.id), .text(file.sha256), .integer(file.size), .text(file.name), .optionalText(file.room),
                    .optionalInteger(file.seq), .integer(file.ts), .text(file.sender), .optionalText(file.senderAccount),
                    .text(file.uploaderPeer), .text(file.uploadID), .text(file.owner), .optionalText(file.recipient),
                    .optionalText(file.recipientAccount), .optionalText(file.recipientPeer), .text(file.address),
                ], doing: "storing the record of file '\(file.id)'")
            if let event { try insert([event], retainPerRoom: retainPerRoom) }
            try statements.commit.run([], doing: "committing")
        } catch {
            try? statements.rollback.run([], doing: "rolling back")
            throw error
        }
    }

    public func file(id: String) throws -> StoredFile? {
        try readFile(fileStatements.selectFile, [.text(id)])
    }

    public func setSequence(_ seq: Int64, ofFile id: String) throws {
        try fileStatements.updateFileSeq.run([.text(id), .integer(seq)], doing: "setting the seq of file '\(id)'")
    }

    public func file(uploadedBy peer: String, id: String) throws -> StoredFile? {
        try readFile(fileStatements.selectUpload, [.text(peer), .text(id)])
    }

    public func hasContent(_ sha256: String) throws -> Bool {
        let statement = fileStatements.hasContent
        statement.bind([.text(sha256)])
        defer { statement.reset() }
        return try statement.step(doing: "looking up stored content")
    }

    public func usage(of scope: FileScope, exceptPartial: String?) throws -> FileUsage {
        let except = SQLiteValue.optionalText(exceptPartial)
        let stored: Int64
        let partials: (bytes: Int64, count: Int64)
        switch scope {
        case .everyone:
            stored = try readInteger(fileStatements.storedBytes, [], doing: "summing stored file bytes")
            partials = try readPair(fileStatements.partialUsage, [except], doing: "summing partial uploads")
        case .owner(let owner):
            stored = try readInteger(fileStatements.bytesOwned, [.text(owner)], doing: "summing an owner's file bytes")
            partials = try readPair(fileStatements.ownerPartialUsage, [except, .text(owner)], doing: "summing an owner's partial uploads")
        case .address(let address):
            stored = try readInteger(fileStatements.bytesFromAddress, [.text(address)], doing: "summing an address's file bytes")
            partials = try readPair(fileStatements.addressPartialUsage, [except, .text(address)],
                                    doing: "summing an address's partial uploads")
        }
        return FileUsage(fileBytes: stored, partialBytes: partials.bytes, partials: Int(partials.count))
    }

    /// ``FileEvictionRule``, in the statements of ``SQLiteFileStatements``.
    public func nextEviction(uploaderParty: String, adding: Int64) throws -> StoredFile? {
        let statement = fileStatements.largestParty
        statement.bind([.text(uploaderParty), .integer(adding)])
        let largest: (party: String, held: Int64)?
        do {
            largest = try statement.step(doing: "finding the largest holder of files") ? statement.text(at: 0).map { ($0, statement.integer(at: 1)) } : nil
        } catch {
            statement.reset()
            throw error
        }
        statement.reset()
        guard let largest, let candidate = try readFile(fileStatements.oldestOfParty, [.text(largest.party)]) else { return nil }
        guard FileEvictionRule.isExemptAccount(largest.party) else { return candidate }
        let newcomers = try readInteger(fileStatements.newcomersHeld, [.integer(candidate.ts), .text(uploaderParty), .integer(adding)],
                                        doing: "summing the newcomers' file bytes")
        guard newcomers >= largest.held, let theirs = try readFile(fileStatements.oldestNewcomer, [.integer(candidate.ts)]) else { return candidate }
        return theirs
    }

    public func removeFile(id: String) throws -> Bool {
        let statement = fileStatements.deleteFile
        statement.bind([.text(id)])
        let removed: String?
        do {
            removed = try statement.step(doing: "removing the record of file '\(id)'") ? statement.text(at: 0) : nil
            while try statement.step(doing: "removing the record of file '\(id)'") {}
        } catch {
            statement.reset()
            throw error
        }
        statement.reset()
        guard let removed else { return false }
        return try !hasContent(removed)
    }

    public func savePartial(_ partial: PartialUpload) throws {
        try fileStatements.savePartial.run(
            [
                .text(partial.key), .text(partial.peer), .text(partial.id), .text(partial.owner), .optionalText(partial.room),
                .optionalText(partial.recipient), .text(partial.name), .integer(partial.size), .text(partial.sha256),
                .integer(partial.updated), .text(partial.address), .integer(partial.charged),
            ], doing: "saving a partial upload")
    }

    public func partial(peer: String, id: String) throws -> PartialUpload? {
        try readPartials(fileStatements.selectPartial, [.text(peer), .text(id)]).first
    }

    public func removePartial(key: String) throws {
        try fileStatements.deletePartial.run([.text(key)], doing: "removing a partial upload")
    }

    public func partials(updatedBefore ts: Int64) throws -> [PartialUpload] {
        try readPartials(fileStatements.stalePartials, [.integer(ts)])
    }

    // MARK: Rows

    private func readFile(_ statement: SQLiteStatement, _ values: [SQLiteValue]) throws -> StoredFile? {
        statement.bind(values)
        defer { statement.reset() }
        guard try statement.step(doing: "reading a file record") else { return nil }
        return StoredFile(
            id: statement.text(at: 0) ?? "", sha256: statement.text(at: 1) ?? "", size: statement.integer(at: 2),
            name: statement.text(at: 3) ?? "", room: statement.optionalText(at: 4), seq: statement.optionalInteger(at: 5),
            ts: statement.integer(at: 6), sender: statement.text(at: 7) ?? "", senderAccount: statement.optionalText(at: 8),
            uploaderPeer: statement.text(at: 9) ?? "", uploadID: statement.text(at: 10) ?? "", owner: statement.text(at: 11) ?? "",
            address: statement.text(at: 15) ?? "", recipient: statement.optionalText(at: 12),
            recipientAccount: statement.optionalText(at: 13), recipientPeer: statement.optionalText(at: 14))
    }

    private func readPartials(_ statement: SQLiteStatement, _ values: [SQLiteValue]) throws -> [PartialUpload] {
        statement.bind(values)
        defer { statement.reset() }
        var partials: [PartialUpload] = []
        while try statement.step(doing: "reading partial uploads") {
            partials.append(PartialUpload(
                key: statement.text(at: 0) ?? "", peer: statement.text(at: 1) ?? "", id: statement.text(at: 2) ?? "",
                owner: statement.text(at: 3) ?? "", address: statement.text(at: 10) ?? "", room: statement.optionalText(at: 4),
                recipient: statement.optionalText(at: 5), name: statement.text(at: 6) ?? "", size: statement.integer(at: 7),
                sha256: statement.text(at: 8) ?? "", updated: statement.integer(at: 9), charged: statement.integer(at: 11)))
        }
        return partials
    }

    private func readInteger(_ statement: SQLiteStatement, _ values: [SQLiteValue], doing what: String) throws -> Int64 {
        statement.bind(values)
        defer { statement.reset() }
        guard try statement.step(doing: what) else { return 0 }
        return statement.integer(at: 0)
    }

    private func readPair(_ statement: SQLiteStatement, _ values: [SQLiteValue], doing what: String) throws -> (Int64, Int64) {
        statement.bind(values)
        defer { statement.reset() }
        guard try statement.step(doing: what) else { return (0, 0) }
        return (statement.integer(at: 0), statement.integer(at: 1))
    }
}
