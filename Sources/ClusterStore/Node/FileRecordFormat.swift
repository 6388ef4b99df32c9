import ChatServerCore

/// File records and interrupted uploads as the files store keeps them (``FileStoreScripts``).
public enum FileRecordFormat {
    /// An interrupted upload: `KEY PEER ID OWNER ROOM RECIPIENT NAME SIZE SHA256 UPDATED UPLOAD-KEY
    /// ADDRESS CHARGED` by TAB (11 fields before addresses: charged its size).
    public static func encode(_ partial: PartialUpload) -> String {
        [partial.key, partial.peer, partial.id, partial.owner, partial.room ?? "", partial.recipient ?? "", partial.name, String(partial.size),
         partial.sha256, String(partial.updated), uploadKey(peer: partial.peer, id: partial.id), partial.address,
         String(partial.charged)].joined(separator: "\t")
    }

    public static func decodePartial(_ bytes: [UInt8]) -> PartialUpload? {
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 11 || fields.count == 13, let size = Int64(fields[7]), let updated = Int64(fields[9]) else { return nil }
        let charged = fields.count == 13 ? Int64(fields[12]) : size
        return PartialUpload(key: fields[0], peer: fields[1], id: fields[2], owner: fields[3], address: fields.count == 13 ? fields[11] : "",
                             room: fields[4].isEmpty ? nil : fields[4], recipient: fields[5].isEmpty ? nil : fields[5], name: fields[6],
                             size: size, sha256: fields[8], updated: updated, charged: charged ?? size)
    }

    public static func uploadKey(peer: String, id: String) -> String { PeerDigest.of(peer) + ":" + id }

    public static func encode(_ file: StoredFile) -> String {
        [file.id, file.sha256, String(file.size), file.name, file.room ?? "", file.seq.map(String.init) ?? "", String(file.ts), file.sender,
         file.senderAccount ?? "", file.uploaderPeer, file.uploadID, file.owner, file.recipient ?? "", file.recipientAccount ?? "",
         file.recipientPeer ?? "", uploadKey(peer: file.uploaderPeer, id: file.uploadID), file.recipientDevice ?? "",
         file.address].joined(separator: "\t")
    }

    public static func decodeFile(_ bytes: [UInt8]) -> StoredFile? {
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        // 16 fields in records written before the recipient's device was (17), and before the address (18).
        guard (16...18).contains(fields.count), let size = Int64(fields[2]), let ts = Int64(fields[6]) else { return nil }
        func optional(_ index: Int) -> String? { index < fields.count && !fields[index].isEmpty ? fields[index] : nil }
        return StoredFile(id: fields[0], sha256: fields[1], size: size, name: fields[3], room: optional(4), seq: optional(5).flatMap { Int64($0) },
                          ts: ts, sender: fields[7], senderAccount: optional(8), uploaderPeer: fields[9], uploadID: fields[10],
                          owner: fields[11], address: optional(17) ?? "", recipient: optional(12), recipientAccount: optional(13),
                          recipientPeer: optional(14), recipientDevice: optional(16))
    }
}
