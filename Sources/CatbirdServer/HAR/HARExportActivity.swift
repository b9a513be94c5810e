import CatbirdDomain
import Synchronization

/// A HAR export's hold on its tenant's activity (``CatbirdDomain/TenantActivity``): begun when
/// the export begins, ended when its stream ends, fails, or is dropped unfinished (its client
/// went away), so that `--tenant-ttl` never judges the tenant idle while its export is being
/// read (tester finding tester27b-F4: the tenant was dropped under an export still being read,
/// which cut the file; the export counted as work for the 8 ms it took to start).
final class HARExportActivity: Sendable {
    private let activity: TenantActivity
    private let tenant: TenantID
    private let ended = Atomic<Bool>(false)

    /// Begins `tenant`'s work in `activity`.
    init(_ activity: TenantActivity, tenant: TenantID) {
        self.activity = activity
        self.tenant = tenant
        activity.begin(tenant)
    }

    /// Ends the work; once, whoever calls first (the stream's end, or this object's release).
    func end() {
        if !ended.exchange(true, ordering: .relaxed) { activity.end(tenant) }
    }

    deinit {
        end()
    }
}
