import QuicEngine
import ServiceDiscovery

/// `--advertise`: the server published on its local network as `_qchat._udp` (PROTOCOL.md
/// section 11) through avahi-daemon, on the server's own event loop. Without a daemon the server
/// says so once and serves anyway.
extension ChatServerApp {
    static let serviceType = "_qchat._udp"

    /// The TXT record of section 11 for a certificate.
    static func serviceTXT(fingerprint: String) -> TXTRecord {
        // Three short strings: far below the 255 bytes a TXT string may hold.
        TXTRecord(strings: ["v=1.1", "alpn=qchat/1", "fp=" + ServerCertificate.display(fingerprint)])
    }

    func startAdvertising(as name: String, port: UInt16, fingerprint: String) {
        if options.host.hasPrefix("127.") || options.host == "::1" || options.host == "localhost" {
            logger.log(.warning, "advertised address unreachable", ["host": options.host,
                                                                      "why": "listening on loopback only: --host 0.0.0.0 or :: for the network"])
        }
        let advertiser = ServiceAdvertiser(loop: loop, type: ChatServerApp.serviceType, name: name, port: port,
                                           txt: ChatServerApp.serviceTXT(fingerprint: fingerprint))
        advertiser.onEvent = { [unowned self] event in
            switch event {
            case .published(let name):
                logger.log(.info, "advertised", ["name": name, "type": ChatServerApp.serviceType, "port": "\(port)",
                                                 "fp": ServerCertificate.display(fingerprint)])
            case .renamed(let taken, let new):
                logger.log(.warning, "advertised name taken", ["name": taken, "now": new])
            case .daemonUnavailable(let why):
                logger.log(.warning, "not advertised", ["reason": "no avahi-daemon (\(why))", "serving": "yes",
                                                        "advertising": "once avahi-daemon runs"])
            case .daemonLost(let why):
                logger.log(.warning, "avahi-daemon went away", ["reason": why, "advertising": "again once it is back"])
            case .failed(let why):
                logger.log(.error, "advertising failed", ["reason": why])
            }
        }
        self.advertiser = advertiser
        advertiser.start()
    }

    /// A reload that changed the certificate changes the fingerprint advertised.
    func advertiseCertificate(fingerprint: String) {
        advertiser?.update(txt: ChatServerApp.serviceTXT(fingerprint: fingerprint))
    }

    func withdrawAdvertisement() {
        guard let advertiser else { return }
        advertiser.withdraw()
        self.advertiser = nil
        logger.log(.info, "advertisement withdrawn", ["name": advertiser.name])
    }
}
