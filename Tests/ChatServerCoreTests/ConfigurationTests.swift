import ChatProtocol
import ChatServerCore
import Testing

@Suite struct ConfigurationTests {
    /// The defaults are the numbers of PROTOCOL.md.
    @Test func defaultsMatchProtocol() {
        let configuration = ChatServerConfiguration()
        #expect(configuration.serverName == "qchat")
        #expect(configuration.historyPerRoom == 1_000)
        #expect(configuration.floodBurst == 20 && configuration.floodPerSecond == 5)
        #expect(configuration.floodStrikes == 10 && configuration.floodStrikeWindowMilliseconds == 10_000)
        #expect(configuration.typingPerSecond == 2 && configuration.typingBurst == 2)
        #expect(configuration.presenceQueueLimit == 1_000)
        #expect(configuration.defaultReplay == 20 && configuration.maxReplay == 1_000)
        #expect(configuration.historyDefaultLimit == 50 && configuration.historyMaxLimit == 200)
        #expect(configuration.maxFileSize == 100 << 20 && configuration.partialUploadMilliseconds == 3_600_000)
    }

    /// Values that would break the server are refused when the state is created.
    @Test func invalidValuesAreRefused() {
        let broken = [
            ChatServerConfiguration(historyPerRoom: 0),
            ChatServerConfiguration(floodBurst: 0),
            ChatServerConfiguration(floodPerSecond: 0),
            ChatServerConfiguration(typingPerSecond: -1),
            ChatServerConfiguration(presenceQueueLimit: 0),
            ChatServerConfiguration(defaultReplay: 30, maxReplay: 10),
            ChatServerConfiguration(historyDefaultLimit: 300),
            ChatServerConfiguration(maxFileSize: -1),
            ChatServerConfiguration(filesMaxBytes: -1),
            ChatServerConfiguration(partialUploadMilliseconds: 3_599_999),
            ChatServerConfiguration(fileQuotaPerAddressBytes: -1),
            ChatServerConfiguration(diskReserveBytes: -1),
            ChatServerConfiguration(maxPartialUploads: 0),
            ChatServerConfiguration(maxPartialUploadsTotal: 0),
            ChatServerConfiguration(maxUploads: 0),
            ChatServerConfiguration(fileStallMilliseconds: 999),
        ]
        for configuration in broken {
            #expect(throws: ChatServerConfigurationError.self) {
                _ = try ChatServerState(configuration: configuration, history: InMemoryHistoryStore(), random: SystemRandomNumberGenerator())
            }
        }
        #expect(throws: Never.self) {
            _ = try ChatServerState(configuration: ChatServerConfiguration(), history: InMemoryHistoryStore(), random: SystemRandomNumberGenerator())
        }
    }
}
