import Foundation

/// Replaces secrets (tokens, passwords, API keys, values read from the environment) by
/// `***` in text meant for people or files: error messages, reports, checkpoints, staged
/// pages. Each secret is also replaced in its percent-encoded form (as it appears in a URL's
/// query) and its form-encoded form (`+` for spaces).
///
///     let redactor = Redactor(secrets: ["s3cr3t"])
///     redactor.redact("GET /a?api-key=s3cr3t")   // "GET /a?api-key=***"
public struct Redactor: Sendable, Hashable {
    /// The forms replaced, longest first (so a secret containing another is replaced whole).
    public let forms: [String]

    /// A redactor for `secrets` (empty strings and strings under 3 characters are ignored:
    /// replacing them would garble every message).
    public init(secrets: [String]) {
        var forms = Set<String>()
        for secret in secrets where secret.count >= 3 {
            forms.insert(secret)
            if let encoded = secret.addingPercentEncoding(withAllowedCharacters: QueryString.unreserved) { forms.insert(encoded) }
        }
        self.forms = forms.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }

    /// `text` with every secret replaced by `***`.
    public func redact(_ text: String) -> String {
        guard !forms.isEmpty else { return text }
        var result = text
        for form in forms where result.contains(form) {
            result = result.replacingOccurrences(of: form, with: "***")
        }
        return result
    }

    /// `true` when `text` contains a secret.
    public func containsSecret(_ text: String) -> Bool {
        forms.contains { text.contains($0) }
    }

    /// Whether a header of this name carries credentials (its value is a secret, and it is
    /// left out of staged pages): `Authorization`, cookies, and names containing `token`,
    /// `secret`, `key`, `password`, `session` or `auth` (`X-Parse-REST-API-Key`, `X-Api-Key`).
    public static func isSecretHeader(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return ["authorization", "cookie", "token", "secret", "key", "password", "session", "auth"].contains { lowered.contains($0) }
    }

    /// A redactor for the secrets of both.
    func merging(_ other: Redactor) -> Redactor {
        Redactor(forms: Array(Set(forms).union(other.forms)))
    }

    private init(forms: [String]) {
        self.forms = forms.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }
}
