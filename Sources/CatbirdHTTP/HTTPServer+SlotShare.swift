extension HTTPServer {
    /// One holder's share of the connection slots is 1/`slotShareDivisor` of them: 8.
    public static let slotShareDivisor = 8
    /// A holder's share is at least this many slots, whatever the limit: 4.
    public static let minimumSlotShare = 4

    /// The connection slots one holder (a tenant) may fill with one kind of long-lived request
    /// when others need room, of `slots` in all: 1/``slotShareDivisor`` of them, at least
    /// ``minimumSlotShare``. The one rule for a tenant's parked requests (the server's
    /// `ParkedRequests`) and its uploads under way at the limit (``ConnectionWatch``), so that
    /// the two change together.
    public static func slotShare(of slots: Int) -> Int { max(slots / slotShareDivisor, minimumSlotShare) }

    /// The slots all holders together may fill with one such kind, of `slots` in all: all but
    /// 1/``slotShareDivisor`` of them (at least one holder's ``slotShare(of:)``), so that eight
    /// or more holders at their share still leave slots for the health check and requests
    /// answered at once (tester findings tester22b-F2, parked requests; tester52c-F1, uploads).
    public static func slotsForAllHolders(of slots: Int) -> Int { max(slots - slots / slotShareDivisor, slotShare(of: slots)) }
}
