/// Scrape connections a newcomer may take the place of when every slot is taken, oldest first:
/// those still sending their request (a slow or silent scraper, or one trickling a byte at a
/// time to hold the slot) and those answered and waiting for the scraper to close. A connection
/// whose answer is being written is never among them. Linked through the connections
/// themselves, so joining, leaving and finding the oldest are O(1) whatever
/// `--metrics-connections` is.
final class DisplaceableScrapes {
    private(set) var oldest: ScrapeConnection?
    private var newest: ScrapeConnection?

    /// Adds `connection` as the newest; it must not be in the queue.
    func append(_ connection: ScrapeConnection) {
        connection.earlier = newest
        connection.later = nil
        newest?.later = connection
        newest = connection
        if oldest == nil { oldest = connection }
        connection.isDisplaceable = true
    }

    /// Takes `connection` out, if it is in.
    func remove(_ connection: ScrapeConnection) {
        guard connection.isDisplaceable else { return }
        connection.earlier?.later = connection.later
        connection.later?.earlier = connection.earlier
        if oldest === connection { oldest = connection.later }
        if newest === connection { newest = connection.earlier }
        connection.earlier = nil
        connection.later = nil
        connection.isDisplaceable = false
    }
}
