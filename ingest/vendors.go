package ingest

// vendors maps the names of well-known organizations' products, services
// and sites to the organization, for the organization guess: a write-up
// names what failed ("Azure Storage", "Amazon EC2", "Wikidata Query
// Service") more often than the company that runs it. Names are matched
// whole-word and case-sensitively; hosts are matched on the host's end
// ("phabricator.wikimedia.org" is wikimedia.org). Kept as data: adding a
// vendor is adding a line.
var vendors = []struct {
	org   string
	names []string
	hosts []string
}{
	{"Amazon Web Services", []string{"Amazon Web Services", "AWS", "Amazon", "EC2", "S3", "EBS", "RDS", "ELB", "DynamoDB", "CloudFront", "Route 53", "Kinesis", "SimpleDB", "Redshift", "CloudWatch", "Elastic Load Balancing"}, []string{"amazon.com", "amazonaws.com"}},
	{"Microsoft", []string{"Microsoft", "Azure", "Office 365", "Microsoft 365", "Outlook.com", "Bing", "Xbox Live", "OneDrive"}, []string{"microsoft.com", "azure.com", "windows.net", "office.com"}},
	{"Google", []string{"Google", "GCP", "Google Cloud", "App Engine", "Compute Engine", "Kubernetes Engine", "GKE", "BigQuery", "Bigtable", "Cloud Spanner", "Cloud Pub/Sub", "Stackdriver", "Gmail", "YouTube", "G Suite", "Google Workspace"}, []string{"google.com", "googleapis.com", "cloud.google.com", "youtube.com"}},
	{"GitHub", []string{"GitHub", "GitHub Pages", "GitHub Actions", "Codespaces", "Gist"}, []string{"github.com", "githubstatus.com", "github.blog"}},
	{"Wikimedia Foundation", []string{"Wikimedia", "Wikipedia", "Wikidata", "MediaWiki", "Wikitech", "Wiktionary", "Wikimedia Commons", "Parsoid", "eqiad", "codfw", "esams", "ulsfo", "eqsin", "wmnet"}, []string{"wikimedia.org", "wikipedia.org", "wikidata.org", "wmflabs.org", "wmnet", "mediawiki.org"}},
	{"Cloudflare", []string{"Cloudflare"}, []string{"cloudflare.com", "cloudflarestatus.com"}},
	{"Fastly", []string{"Fastly"}, []string{"fastly.com"}},
	{"Akamai", []string{"Akamai"}, []string{"akamai.com"}},
	{"Facebook", []string{"Facebook", "Meta", "Instagram", "WhatsApp"}, []string{"facebook.com", "fb.com", "meta.com", "instagram.com"}},
	{"Atlassian", []string{"Atlassian", "Jira", "Confluence", "Bitbucket", "Trello", "Opsgenie", "Statuspage"}, []string{"atlassian.com", "atlassian.net", "bitbucket.org"}},
	{"GitLab", []string{"GitLab", "GitLab.com"}, []string{"gitlab.com"}},
	{"Slack", []string{"Slack"}, []string{"slack.com", "slackhq.com"}},
	{"Stripe", []string{"Stripe"}, []string{"stripe.com"}},
	{"Heroku", []string{"Heroku"}, []string{"heroku.com"}},
	{"Salesforce", []string{"Salesforce"}, []string{"salesforce.com"}},
	{"DigitalOcean", []string{"DigitalOcean"}, []string{"digitalocean.com"}},
	{"Dropbox", []string{"Dropbox"}, []string{"dropbox.com"}},
	{"Discord", []string{"Discord"}, []string{"discord.com", "discordapp.com"}},
	{"Twitter", []string{"Twitter"}, []string{"twitter.com"}},
	{"Reddit", []string{"Reddit"}, []string{"reddit.com", "redditstatus.com"}},
	{"Netflix", []string{"Netflix"}, []string{"netflix.com"}},
	{"Spotify", []string{"Spotify"}, []string{"spotify.com"}},
	{"Datadog", []string{"Datadog"}, []string{"datadoghq.com"}},
	{"PagerDuty", []string{"PagerDuty"}, []string{"pagerduty.com"}},
	{"Zoom", []string{"Zoom"}, []string{"zoom.us"}},
	{"Shopify", []string{"Shopify"}, []string{"shopify.com"}},
	{"Twilio", []string{"Twilio", "SendGrid"}, []string{"twilio.com", "sendgrid.com"}},
	{"Okta", []string{"Okta"}, []string{"okta.com"}},
	{"Roblox", []string{"Roblox"}, []string{"roblox.com"}},
	{"Mozilla", []string{"Mozilla", "Firefox"}, []string{"mozilla.org"}},
	{"Apple", []string{"Apple", "iCloud"}, []string{"apple.com", "icloud.com"}},
	{"Dreamwidth", []string{"Dreamwidth"}, []string{"dreamwidth.org"}},
}
