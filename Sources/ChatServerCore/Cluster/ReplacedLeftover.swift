/// The rooms of a connection replaced through another node, to leave if it does not join them there.
struct ReplacedLeftover {
    let deadline: Int64
    let peer: String
    let nick: String
    let rooms: [String]
}
