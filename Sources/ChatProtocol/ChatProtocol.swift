// Placeholder until ChatProtocol lands.
