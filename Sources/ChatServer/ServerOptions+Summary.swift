import ChatProtocol

/// The settings as their flags name them, to say what a reload changed and what it cannot.
extension ServerOptions {
    /// Every setting by its flag's name, as text.
    var settingsSummary: [String: String] {
        [
            "host": host, "port": "\(port)", "cert": certificate, "key": key, "client-ca": clientCA ?? "",
            "db": databasePath ?? "", "history": "\(core.historyPerRoom)", "max-clients": "\(maxClients)",
            "sendq": "\(sendQueueLimit)", "replay-limit": "\(replayLimit)", "coalesce-ms": "\(coalesceMilliseconds)", "idle-memory-after": "\(idleMemorySeconds)", "max-per-address": "\(maxPerAddress)",
            "exempt": exemptAddresses.map(\.description).joined(separator: ","),
            "max-rooms-per-client": "\(core.maxRoomsPerClient)", "idle-rooms": "\(core.idleRoomLimit)",
            "retry": "\(retry)", "retry-above": "\(retryAboveHandshakes)",
            "flood-burst": "\(core.floodBurst)", "flood-rate": "\(core.floodPerSecond)", "typing-rate": "\(core.typingPerSecond)",
            "name": core.serverName, "log-level": logLevel.name, "log-format": logFormat.rawValue,
            "operator": core.operators.sorted().map { name in
                core.operatorCertificates[ChatValidation.nickKey(name)].map { "\(name)=sha256:\($0)" } ?? name
            }.joined(separator: ","), "accounts-only": "\(core.accountsOnly)",
            "lobby-claimable": "\(core.lobbyClaimable)",
            "password-queue": "\(core.passwordQueueLimit)", "password-workers": "\(passwordWorkers)",
            "registrations-per-address": "\(core.registrationsPerAddress)",
            "metrics": metrics.address.map { "\($0)" } ?? "",
            "metrics-connections": "\(metrics.maxConnections)", "metrics-request-bytes": "\(metrics.maxRequestBytes)",
            "metrics-timeout": "\(metrics.timeout)", "metrics-cache": "\(metrics.cacheLifetime)",
            "files": filesDirectory ?? "", "max-file-size": "\(core.maxFileSize)", "file-quota": "\(core.fileQuotaBytes)",
            "files-max-bytes": "\(core.filesMaxBytes)", "file-quota-per-address": "\(core.fileQuotaPerAddressBytes)",
            "disk-reserve": "\(core.diskReserveBytes)", "max-partial-uploads": "\(core.maxPartialUploads)",
            "max-partial-uploads-total": "\(core.maxPartialUploadsTotal)", "max-uploads": "\(core.maxUploads)",
            "file-stall-timeout": "\(core.fileStallMilliseconds)", "file-min-rate": "\(core.fileMinimumRate)",
            "state-dir": stateDirectory, "self-signed": "\(selfSigned)", "advertise": advertisedName ?? "",
            "cluster": cluster.map { "\($0.topology)/\($0.database)" } ?? "", "node": cluster?.node ?? "",
            "cluster-wait-replicas": cluster.map { "\($0.waitReplicas)" } ?? "",
            "cluster-node-timeout": cluster.map { "\($0.nodeTimeout)" } ?? "",
        ]
    }

    /// Settings bound to sockets and files opened at start: a reload cannot change them.
    static let restartOnly = ["host", "port", "db", "files", "metrics", "password-workers", "state-dir", "self-signed", "advertise",
                              "cluster", "node", "cluster-wait-replicas", "cluster-node-timeout"]

    /// The restart-only settings that differ in `other`.
    func restartOnlyDifferences(from other: ServerOptions) -> [String] {
        let mine = settingsSummary, theirs = other.settingsSummary
        return ServerOptions.restartOnly.filter { mine[$0] != theirs[$0] }
    }

    /// Takes the restart-only settings of the running server.
    mutating func keepRestartOnlySettings(of running: ServerOptions) {
        host = running.host
        port = running.port
        databasePath = running.databasePath
        filesDirectory = running.filesDirectory
        metrics.address = running.metrics.address
        passwordWorkers = running.passwordWorkers
        core.passwordTasksRunning = running.core.passwordTasksRunning
        stateDirectory = running.stateDirectory
        if selfSigned != running.selfSigned {
            selfSigned = running.selfSigned
            certificate = running.certificate
            key = running.key
        }
        advertisedName = running.advertisedName
        cluster = running.cluster
        core.nodeName = running.core.nodeName
    }
}
