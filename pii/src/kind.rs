//! What a finding is: its [`Kind`], a stable snake_case name (the `kind` column of the
//! `pii/` table and the keys of the statistics), whether it is personal data or a secret,
//! and the placeholder that redaction writes for it.

use serde::{Deserialize, Serialize};

/// Personal data (who someone is or where they are) or a secret (what lets someone in).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    PersonalData,
    Secret,
}

macro_rules! kinds {
    ($($variant:ident => $name:literal, $cat:ident, $doc:literal;)*) => {
        /// The kind of a finding. The names (`Kind::name`) are part of codemine's output
        /// contract: never renamed, only added to.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum Kind {
            $(#[doc = $doc] $variant,)*
        }

        impl Kind {
            /// Every kind, in declaration order.
            pub const ALL: &'static [Kind] = &[$(Kind::$variant,)*];

            /// The stable snake_case name.
            pub fn name(self) -> &'static str {
                match self {
                    $(Kind::$variant => $name,)*
                }
            }

            pub fn category(self) -> Category {
                match self {
                    $(Kind::$variant => Category::$cat,)*
                }
            }
        }
    };
}

kinds! {
    Email => "email", PersonalData, "An e-mail address (bigcode-dataset's rule).";
    IpAddress => "ip_address", PersonalData,
        "A public IPv4 or IPv6 address (private, loopback, link-local, documentation, reserved and well-known DNS addresses are not reported).";
    AwsAccessKeyId => "aws_access_key_id", Secret, "An AWS access key id (`AKIA...`, `ASIA...`).";
    AwsSecretAccessKey => "aws_secret_access_key", Secret, "An AWS secret access key (40 characters near `aws` and a key word).";
    GcpApiKey => "gcp_api_key", Secret, "A Google Cloud API key (`AIza...`).";
    GcpServiceAccountKeyId => "gcp_service_account_key_id", Secret, "The `private_key_id` of a Google service-account key file.";
    AzureStorageKey => "azure_storage_key", Secret, "An Azure storage account key (`AccountKey=...` in a connection string).";
    AzureSharedAccessKey => "azure_shared_access_key", Secret, "An Azure Service Bus / Event Hubs key (`SharedAccessKey=...`).";
    GithubToken => "github_token", Secret, "A GitHub token (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`).";
    GitlabToken => "gitlab_token", Secret, "A GitLab token (`glpat-` and the other prefixes).";
    SlackToken => "slack_token", Secret, "A Slack token (`xoxb-...`).";
    SlackWebhook => "slack_webhook", Secret, "A Slack incoming-webhook URL.";
    StripeKey => "stripe_key", Secret, "A Stripe live secret or restricted key (`sk_live_`, `rk_live_`).";
    TwilioKey => "twilio_key", Secret, "A Twilio account SID or API key (`AC`/`SK` and 32 characters).";
    NpmToken => "npm_token", Secret, "An npm token (`npm_...`, or `_authToken=` in an `.npmrc`).";
    PypiToken => "pypi_token", Secret, "A PyPI or TestPyPI API token (`pypi-AgEI...`).";
    Jwt => "jwt", Secret, "A JSON Web Token whose header and payload decode to JSON.";
    PrivateKey => "private_key", Secret, "A private key block (`-----BEGIN ... PRIVATE KEY-----` with its body).";
    UrlPassword => "url_password", Secret, "The password of a URL's user information (`scheme://user:PASSWORD@host`).";
    ConnectionStringPassword => "connection_string_password", Secret, "`Password=`/`Pwd=` in a database connection string.";
    Password => "password", Secret, "A value assigned to a password-like name (`password = \"...\"`).";
    Secret => "secret", Secret, "A random-looking value assigned to a secret-like name (`api_key = \"...\"`).";
}

impl Kind {
    /// The kind of a stable name, as [`Kind::name`] writes it.
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.name() == name)
    }

    /// Which detector wins when two findings overlap: the more specific shape first (a
    /// private key block, then fixed-prefix tokens, then credentials in URLs and connection
    /// strings, then keyword assignments), personal data last.
    pub(crate) fn priority(self) -> u8 {
        match self {
            Kind::PrivateKey => 100,
            Kind::UrlPassword | Kind::ConnectionStringPassword => 80,
            Kind::Password | Kind::Secret => 70,
            Kind::Email => 60,
            Kind::IpAddress => 50,
            _ => 90,
        }
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One finding: its kind and its byte span `start..end` in the text it was found in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Finding {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

impl Finding {
    /// The finding's text in the text it was found in (empty if `text` is another text).
    pub fn value<'t>(&self, text: &'t str) -> &'t str {
        text.get(self.start..self.end).unwrap_or("")
    }
}
