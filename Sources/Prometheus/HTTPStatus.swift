/// The HTTP statuses the metrics endpoint answers with.
public enum HTTPStatus: Int, Sendable, CaseIterable {
    case ok = 200
    case badRequest = 400
    case notFound = 404
    case methodNotAllowed = 405
    case requestTimeout = 408
    case headersTooLarge = 431
    case serviceUnavailable = 503
    case versionNotSupported = 505

    public var reason: String {
        switch self {
        case .ok: "OK"
        case .badRequest: "Bad Request"
        case .notFound: "Not Found"
        case .methodNotAllowed: "Method Not Allowed"
        case .requestTimeout: "Request Timeout"
        case .headersTooLarge: "Request Header Fields Too Large"
        case .serviceUnavailable: "Service Unavailable"
        case .versionNotSupported: "HTTP Version Not Supported"
        }
    }

    /// The plain-text body of an error answer: what this endpoint serves instead.
    var explanation: String {
        switch self {
        case .ok: ""
        case .badRequest: "malformed request: this endpoint serves GET /metrics over HTTP/1.1\n"
        case .notFound: "not found: this endpoint serves GET /metrics\n"
        case .methodNotAllowed: "method not allowed: this endpoint serves GET /metrics\n"
        case .requestTimeout: "the request did not arrive in time\n"
        case .headersTooLarge: "the request head is too large\n"
        case .serviceUnavailable: "too many scrapes at once; try again\n"
        case .versionNotSupported: "HTTP/1.0 and HTTP/1.1 only\n"
        }
    }
}
