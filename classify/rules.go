package classify

import "hindsight/postmortem"

// The catalogue gives each pattern its detection phrases; the rules below are
// the classifier's own reading of its notes (section 4) and of each pattern's
// signals: which words only count next to the pattern's domain nouns, which
// co-occurrences are evidence on their own, and the role a pattern usually
// plays. Terms are written folded, in English or Spanish; each is matched on
// both languages' stems. A word written with a leading "=" must also match
// exactly, and a word of three letters or fewer must start the text's word:
// stemming turns "settings" into "set" and "UPS" into "up".

// cue is a co-occurrence: one term of every group within the window (1 =
// the same sentence, 2 = a sentence and the next).
type cue struct {
	groups [][]string
	weight float64
	window int
}

type rule struct {
	prior  string   // the role the pattern usually plays
	domain []string // nouns that let a single word of the pattern count
	weak   []string // phrases of the catalogue that are weak alone (note 1)
	cues   []cue
	// shownByFix: the way the incident was ended is itself evidence of the
	// pattern (users let back in gradually, all traffic stopped).
	shownByFix bool
}

// Evidence weights. Scores combine as 1-Π(1-w), so one strong phrase or one
// cue passes the default threshold, while single words need several.
const (
	weightPhrase    = 0.6
	weightCue       = 0.5
	weightSupported = 0.3  // a single or weak word next to a domain noun
	weightLone      = 0.08 // a single catalogue word with nothing around it
	weakCap         = 0.4  // weak evidence alone never reaches the threshold
	nearTokens      = 8    // how close a domain noun must be to a weak word
	cueTokens       = 20   // how close the terms of a same-sentence cue must be
	noImpactFactor  = 0.5  // scale of every score in a text with no sign of failure
	// lessonFactor scales evidence found only in lessons and action items
	// for a pattern that is usually a mechanism rather than a missing
	// defence: plans name deploys, configs and capacity without them failing.
	lessonFactor = 0.5
	// lonePhraseFactor scales a pattern whose only evidence is one catalogue
	// phrase in one sentence.
	lonePhraseFactor = 0.8
	// mitigationFactor scales evidence found only in what ended the
	// incident (fixes are changes, rollbacks, restarts, removals from
	// rotation), except for patterns shown by their fix.
	mitigationFactor = 0.7
	longReport       = 10 // sentences from which lonePhraseFactor applies

	// DefaultThreshold is the evidence score of a pattern the text states:
	// one strong phrase or one cue reaches it, single words do not. What is
	// shown is decided by the model's confidence (Shown, model.go).
	DefaultThreshold = 0.5
)

var (
	dataNouns    = []string{"database", "databases", "db", "table", "tables", "rows", "records", "files", "repository", "repositories", "mail", "emails", "user data", "customer data", "data", "writes", "updates", "orders", "datos", "base de datos", "tabla", "tablas", "filas", "registros", "archivos", "repositorios", "correos", "escrituras", "actualizaciones", "pedidos"}
	configNouns  = []string{"config", "configuration", "configurations", "=settings", "configuracion", "ajustes", "parametros", "feature flag", "flag", "rule", "rules", "policy", "politica", "reglas"}
	loadNouns    = []string{"load", "traffic", "requests", "queries", "carga", "trafico", "peticiones", "consultas"}
	backupNouns  = join(dataNouns, []string{"dump", "tape", "tapes", "bucket", "buckets", "volume", "volumes", "job", "jobs", "cinta", "cintas", "volumen"})
	overloadWord = []string{"overload", "overloaded", "overwhelmed", "saturated", "sobrecargado", "sobrecargados", "sobrecarga", "saturado", "saturados", "abrumado"}
)

func join(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

var rules = map[string]rule{
	"feedback-loop": {
		prior:      postmortem.RoleAmplifier,
		shownByFix: true,
		domain:     []string{"loop", "cycle", "worse", "recover", "persist", "spiral", "oscillate", "bucle", "ciclo", "recuperar", "empeorar"},
		cues: []cue{
			{groups: [][]string{{"feedback", "retroalimentacion", "realimentacion"}, {"loop", "loops", "cycle", "loophole", "bucle", "bucles", "ciclo", "circulo"}}, weight: 0.6},
			{groups: [][]string{{"exacerbated", "exacerbate", "aggravated", "compounded", "agravo", "agravaba"}, {"problem", "issue", "situation", "outage", "problema", "situacion"}}},
			{groups: [][]string{{"oscillating", "oscillate", "oscillation", "oscilaban", "oscilacion"}, {"failure", "failures", "fail", "load", "errors", "fallos", "carga"}}},
			{groups: [][]string{{"even fewer", "even less", "even more", "ever more", "still fewer", "aun menos", "aun mas", "todavia menos", "cada vez menos"}, {"caused", "causing", "made", "leading", "led", "meant", "causo", "provoco", "hizo"}}},
			{groups: [][]string{{"to themselves", "on themselves", "to ourselves", "on ourselves", "a ellos", "a si mismos"}, {"requests", "demands", "queries", "load", "traffic", "peticiones", "consultas", "carga"}}},
			{groups: [][]string{{"kept", "keep", "continued", "seguia", "siguio", "siguieron"}, {"more", "mas"}, {"restarting", "retrying", "failing", "removing", "ejecting", "reiniciando", "reintentando", "retirando"}}},
			{groups: [][]string{{"stop all", "cut all", "halt all", "block all", "parar todo", "cortar todo", "cortamos todo", "detener todo"}, {"traffic", "requests", "trafico", "peticiones"}}},
		},
	},
	"retry-storm": {
		prior:  postmortem.RoleAmplifier,
		domain: []string{"retry", "retries", "error", "errors", "timeout", "timeouts", "client", "clients", "request", "again", "reintentos", "clientes", "backoff", "failed"},
		cues: []cue{
			{groups: [][]string{{"every time", "each time", "whenever", "every single time", "every failed", "each failed", "cada vez", "siempre que"}, {"error", "errors", "failure", "failed", "mistake", "timeout", "timed out", "fallo", "fallaba"}, {"retry", "retried", "try", "trying", "tried", "query", "again", "intentando", "reintentaba", "de nuevo", "otra vez"}}},
			{groups: [][]string{{"retries", "retry", "retried", "retrying", "reintentos", "reintentaban"}, {"storm", "amplified", "multiplied", "every layer", "aggressive", "flood", "immediately", "tormenta", "agresivos", "multiplicaron", "inmediatamente"}}},
			{groups: [][]string{{"kept", "keep", "continued", "seguian", "siguieron"}, {"retrying", "retry", "reintentando"}}},
			{groups: [][]string{{"did not back off", "didnt back off", "without backing off", "retried repeatedly", "search repeatedly", "no dejaron de reintentar"}}},
			{groups: [][]string{{"clients", "client", "users", "apps", "sdk", "sdks", "clientes", "usuarios"}, {"retried", "retrying", "retries", "reloading", "refreshing", "reintentaban", "reintentos"}, {"timeout", "timeouts", "errors", "failed", "overloaded", "slow", "errores", "lento"}}},
		},
	},
	"cache-stampede": {
		prior:  postmortem.RoleAmplifier,
		domain: []string{"database", "databases", "=db", "backend", "origin", "queries", "misses", "hit rate", "base de datos", "consultas"},
		weak:   []string{"cold cache", "cache warming", "cache invalidation", "evicted", "cache flush", "calentamiento de cache", "invalidacion de cache", "cache fria"},
		cues: []cue{
			{groups: [][]string{{"cache", "caches", "memcache", "memcached", "redis"}, {"deleted", "delete", "removed", "erased", "invalidated", "evicted", "flushed", "purged", "emptied", "expired", "cold", "miss", "misses", "unavailable", "failed", "split", "borro", "borrada", "suprimio", "vacio", "invalidacion", "fria"}, {"database", "databases", "db", "backend", "origin", "queries", "query", "mysql", "postgres", "datastore", "appserver load", "app server load", "base de datos", "bases de datos", "consultas"}}},
			{groups: [][]string{{"hit rate", "hit ratio", "miss rate", "cache misses", "tasa de aciertos"}, {"dropped", "fell", "collapsed", "plummeted", "drop", "cayo", "caida", "bajo"}}},
			{groups: [][]string{{"thundering herd", "manada atronadora"}, {"cache", "database", "db", "base de datos"}}},
		},
	},
	"thundering-herd": {
		prior:      postmortem.RoleAmplifier,
		shownByFix: true,
		domain:     []string{"reconnect", "reconnected", "login", "boot", "clients", "sessions", "at once", "simultaneously", "reconexion", "a la vez"},
		cues: []cue{
			{groups: [][]string{{"gradually", "slowly", "in stages", "step by step", "progressively", "gradualmente", "despacio", "poco a poco", "lentamente", "progresivamente"}, {"allowed", "let", "readmitted", "admitted", "brought", "ramped", "enabled", "reopened", "permitimos", "dejamos", "readmitimos", "restablecimos"}, {"people", "users", "clients", "traffic", "back", "customers", "individuals", "personas", "usuarios", "clientes", "trafico"}}},
			{groups: [][]string{{"reconnect", "reconnected", "reconnecting", "logged in", "log in", "rebooted", "reconectaron", "reconexion"}, {"at once", "at the same time", "simultaneously", "all together", "a la vez", "al mismo tiempo", "simultaneamente"}}},
		},
	},
	"cascading-overload": {
		prior:  postmortem.RoleAmplifier,
		domain: join(loadNouns, overloadWord, []string{"servers", "nodes", "capacity", "remaining", "fewer", "servidores", "nodos"}),
		cues: []cue{
			{groups: [][]string{loadNouns, {"shifted", "shifting", "transferred", "moved", "redistributed", "spilled", "shift", "paso", "traslado", "redirigio", "desplazo"}, {"remaining", "rest", "other", "others", "surviving", "restantes", "demas", "otros"}}, weight: 0.6},
			{groups: [][]string{{"remaining", "rest of the", "surviving", "restantes", "demas"}, {"more traffic", "more load", "extra load", "additional load", "more requests", "extra traffic", "mas trafico", "mas carga", "mas peticiones"}}},
			{groups: [][]string{overloadWord, {"one after another", "in turn", "one by one", "within minutes", "more of them", "uno tras otro", "en cadena", "en pocos minutos"}}},
			{groups: [][]string{{"cascading", "cascade", "cascaded", "cascada", "domino"}, {"problem", "failure", "failures", "overload", "load", "outage", "servers", "problema", "fallo", "carga"}}},
		},
	},
	"connection-exhaustion": {
		prior:  postmortem.RoleAmplifier,
		domain: []string{"connection", "connections", "worker", "workers", "thread", "threads", "pool", "socket", "sockets", "apache", "nginx", "idle", "conexiones", "hilos"},
		cues: []cue{
			{groups: [][]string{{"ran out", "run out", "running out", "exhausted", "exhaustion", "starvation", "starved", "filled up", "tied up", "used up", "depleted", "no free", "all busy", "saturated", "agotaron", "agotado", "agotados", "agotamiento", "ocupados"}, {"connection", "connections", "worker", "workers", "thread", "threads", "socket", "sockets", "slots", "file descriptors", "ports", "conexiones", "hilos", "procesos"}}, weight: 0.6},
			{groups: [][]string{{"too many", "demasiadas"}, {"connections", "open files", "conexiones"}}},
		},
	},
	"health-check-death-spiral": {
		prior:  postmortem.RoleAmplifier,
		domain: []string{"health check", "health checks", "probe", "probes", "unhealthy", "load balancer", "rotation", "ejected", "balanceador"},
		weak:   []string{"health check", "heartbeat timeout"},
		cues: []cue{
			{groups: [][]string{{"health check", "health checks", "healthcheck", "probe", "probes", "readiness", "liveness", "sonda", "sondas"}, {"failed", "failing", "failures", "failure", "fail", "oscillating", "flapping", "timed out", "unhealthy", "fallaban", "fallaron", "fallos"}, {"removed", "ejected", "pulled", "rotation", "considered", "marked", "fewer", "restarted", "restart", "load balancer", "balanceador", "retirados", "sacados", "reiniciados"}}, weight: 0.6, window: 2},
			{groups: [][]string{{"removed themselves", "remove themselves", "stop sending us traffic", "stop sending traffic", "se retiraron"}}},
		},
	},
	"queue-backlog": {
		prior:  postmortem.RoleAmplifier,
		domain: []string{"queue", "queues", "backlog", "messages", "jobs", "consumers", "cola", "colas", "mensajes"},
		cues: []cue{
			{groups: [][]string{{"queue", "queues", "backlog", "cola", "colas"}, {"grew", "built up", "backed up", "depth", "stuck", "hours", "drain", "catch up", "behind", "large", "processed", "atascada", "crecio", "acumulo", "horas"}}},
		},
	},
	"resource-limit-reached": {
		prior:  postmortem.RoleContributing,
		domain: []string{"limit", "capacity", "memory", "disk", "threads", "quota", "maximum", "headroom", "limite", "capacidad", "memoria"},
		cues: []cue{
			{groups: [][]string{{"insufficient", "not enough", "lack of", "short of", "underestimated", "underprovisioned", "insuficiente", "subestimamos", "falta de"}, {"capacity", "memory", "disk", "headroom", "resources", "load", "capacidad", "memoria", "recursos", "carga"}}, weight: 0.6},
			{groups: [][]string{{"hit", "reached", "exceeded", "went over", "above", "beyond", "alcanzamos", "superamos", "alcanzo", "supero"}, {"limit", "limits", "maximum", "quota", "ceiling", "max", "limite", "maximo", "cuota"}}},
			{groups: [][]string{{"resources", "capacity", "memory", "recursos", "capacidad", "memoria"}, {"exhausted", "maxed out", "used up", "agotados", "agotada", "agotaron"}}},
			{groups: [][]string{{"out of"}, {"memory", "disk space", "space", "ids"}}},
			{groups: [][]string{{"increasing", "increase", "increased", "added", "add", "raised", "aumentamos", "anadimos"}, {"capacity", "capacidad"}, {"peak", "headroom", "beyond", "pico", "margen"}}, weight: 0.3},
		},
	},
	"no-graceful-degradation": {
		prior:  postmortem.RoleMissingDefence,
		domain: []string{"degrade", "gracefully", "shed", "shedding", "priority", "overload", "overloaded", "refuse", "degradar", "carga"},
		weak:   []string{"rate limiting", "circuit breaker", "kill switch", "disable the feature", "best effort", "critical traffic", "limitacion de tasa", "desactivar la funcionalidad", "plan de respaldo"},
		cues: []cue{
			{groups: [][]string{{"turn off", "turned off", "turning off", "shut off", "shutting off", "shut down", "took down", "take down", "switch off", "switched off", "apagar", "apagamos", "apago", "cerrar", "cerramos"}, {"site", "website", "service", "whole", "entire", "sitio", "servicio", "web"}}},
			{groups: [][]string{{"refusing", "refused", "refuse", "rejecting", "rejected", "rechazar", "rechazaban"}, {"traffic", "requests", "all", "trafico", "peticiones"}, {"instead", "rather than", "overload", "overloaded", "too slow", "en lugar de", "sobrecargados", "sobrecarga"}}},
			{groups: [][]string{{"gracefully", "graceful", "elegantemente", "de forma controlada"}, {"degrade", "degradation", "deal", "handle", "fail", "degradar", "degradacion"}}},
			{groups: [][]string{{"drop", "dropping", "dropped", "shed", "shedding", "reject", "rejecting", "descartar", "descartando", "rechazar"}, {"under load", "too much load", "overload", "overloaded", "under pressure", "bajo carga", "sobrecarga", "sobrecargado"}}},
		},
	},
	"harmful-error-handling": {
		prior:  postmortem.RoleAmplifier,
		domain: []string{"error", "errors", "automated", "automatic", "repair", "fix", "invalid", "remediation", "verify", "exception", "automatizado"},
		weak:   []string{"error handling", "automated system", "manejo de errores", "sistema automatizado"},
		cues: []cue{
			{groups: [][]string{{"handling", "manejo", "gestion", "mishandling"}, {"error condition", "error conditions", "error path", "condicion de error"}}, weight: 0.6},
			{groups: [][]string{{"automated", "automatic", "automatically", "computerized", "automation", "self healing", "checker", "verifier", "automatizado", "automatico", "automatizacion"}, {"damage", "worse", "amplified", "deleted", "harm", "danos", "dano", "empeoro"}}, weight: 0.6, window: 2},
			{groups: [][]string{{"watchdog", "failsafe", "protection", "safeguard", "self healing", "automation", "salvaguarda"}, {"erroneously", "mistakenly", "wrongly", "force all", "por error"}}},
			{groups: [][]string{{"intended to fix", "meant to fix", "supposed to fix", "tries to fix", "attempts to fix", "tried to fix", "tried to repair", "intento corregir", "intenta corregir"}, {"automated", "automatic", "automatically", "automation", "system", "script", "tool", "logic", "mechanism", "automatizado", "automatico", "sistema", "herramienta"}}},
		},
	},
	"bad-config-push": {
		prior:  postmortem.RoleTrigger,
		domain: configNouns,
		weak:   []string{"feature flag", "regular expression", "firewall rule"},
		cues: []cue{
			{groups: [][]string{{"change", "changed", "changing", "modification", "modified", "update", "updated", "push", "pushed", "edit", "cambio", "cambiamos", "modificacion", "modificamos", "actualizacion"}, configNouns}},
			{groups: [][]string{configNouns, {"invalid", "wrong", "bad", "broken", "malformed", "typo", "incorrect", "incompatible", "faulty", "conflict", "invalido", "erroneo", "incorrecto"}}},
			{groups: [][]string{{"deployed", "applied", "rolled out", "rolled back", "synced", "merged", "inadvertently", "desplegada", "aplicada"}, configNouns}},
			{groups: [][]string{{"misconfiguration", "misconfigured", "configuration error", "configuration update", "config change", "configuration change", "error de configuracion"}}},
		},
	},
	"bad-deploy": {
		prior:  postmortem.RoleTrigger,
		domain: []string{"bug", "regression", "broke", "broken", "crash", "crashed", "errors", "failed", "failing", "introduced", "error", "errores", "fallo", "regresion", "rompio", "introdujo"},
		cues: []cue{
			{groups: [][]string{{"recent", "new", "latest", "reciente", "recientes", "nueva", "nuevo"}, {"changes", "change", "release", "version", "code", "build", "cambios", "codigo"}, {"load", "cost", "cpu", "memory", "latency", "carga", "memoria", "latencia"}}},
			{groups: [][]string{{"introduced", "shipped", "contained", "introdujo", "contenia"}, {"bug", "regression", "defect", "error", "fallo", "regresion"}}},
			{groups: [][]string{{"latent", "latente"}, {"bug", "bugs", "issue", "defect", "software", "code", "fallo", "error", "defecto", "codigo"}}},
			{groups: [][]string{{"deploy", "deployed", "deployment", "release", "rollout", "despliegue", "desplegamos"}, {"bug", "regression", "broke", "crash", "crashed", "fallo", "regresion"}}},
			{groups: [][]string{{"refactor", "refactoring", "released", "new version", "deployed", "shipped", "refactorizacion", "publicada"}, {"forgot to", "leaked", "leak", "broke", "introduced", "regression", "olvido", "fuga"}}},
			{groups: [][]string{{"rolled back", "roll back", "rolled it back", "reverted", "rollback", "revertimos"}, {"deploy", "deployment", "release", "version", "build", "despliegue"}}},
			{groups: [][]string{{"binary rollout", "roll out of", "rollout of", "partially deployed", "newly deployed", "broken deployment", "faulty deployment", "new branch", "the train", "package upgrades"}}},
			{groups: [][]string{{"rolled the release back", "rolled the deploy back", "rolled back the release", "rolled back the deploy", "rolled back the deployment", "revertimos el despliegue"}}},
		},
	},
	"maintenance-triggered": {
		prior:  postmortem.RoleTrigger,
		domain: []string{"maintenance", "upgrade", "upgrades", "drain", "offline", "planned", "scheduled", "operator", "command", "mantenimiento"},
		cues: []cue{
			{groups: [][]string{{"took", "take", "taken", "brought", "tomamos", "sacamos", "dejamos"}, {"offline", "out of service", "out of rotation", "fuera de servicio"}, {"maintenance", "upgrade", "upgrades", "patch", "patching", "mantenimiento", "actualizacion", "actualizaciones"}}},
			{groups: [][]string{{"maintenance", "mantenimiento"}, {"during", "while", "routine", "planned", "scheduled", "manual", "operation", "durante", "rutinario", "programado"}}},
			{groups: [][]string{{"upgrade", "migration", "migrating", "refresh", "traffic shift", "scale up operation", "scaling activities", "management operations", "actualizacion", "migracion"}, {"during", "as part of", "while", "in the process of", "completed", "executed incorrectly", "durante", "mientras"}}},
			{groups: [][]string{{"human error", "executed incorrectly", "outside the target", "error humano"}}},
			{groups: [][]string{{"=operator", "=operators", "=engineer", "=engineers", "=command", "=commands", "operador", "ingeniero", "comando"}, {"mistyped", "typo", "wrong", "incorrect", "incorrectly", "accidentally", "equivocado", "incorrecto"}}},
			{groups: [][]string{{"=operator", "=operators", "=engineer", "=engineers", "operador", "ingeniero"}, {"=ran", "=run", "executed", "ejecuto"}, {"production", "prod", "produccion"}}},
		},
	},
	"insufficient-isolation": {
		prior:  postmortem.RoleMissingDefence,
		domain: []string{"datacenter", "datacenters", "cell", "cells", "tenant", "tenants", "isolation", "failure domain", "blast radius", "centro de datos", "aislamiento"},
		weak:   []string{"global outage", "all regions", "every region", "caida global", "todas las regiones"},
		cues: []cue{
			{groups: [][]string{{"all regions", "every region", "every datacenter", "all datacenters", "globally", "todas las regiones", "todos los centros de datos"}, {"at the same moment", "at the same time", "at once", "simultaneously", "a la vez", "al mismo tiempo"}}},
			{groups: [][]string{{"one datacenter", "one region", "one zone", "one cell", "one cluster", "a single", "un centro de datos", "una region", "una zona"}, {"another", "other", "all", "every", "otro", "otra", "todas", "todos"}, {"affect", "affected", "spread", "propagated", "impact", "afectar", "afecto", "propago"}}, weight: 0.6},
			{groups: [][]string{{"isolation", "isolated", "isolate", "bulkhead", "bulkheads", "aislamiento"}, {"failure", "fault", "datacenter", "region", "tenant", "cell", "fallos", "centro de datos"}}},
			{groups: [][]string{{"isolated from other", "isolated them from other", "isolate it from other", "affected other", "impacted other", "hurt other", "aislado de otros", "aislamos", "afecto a otros", "afectaba a otros"}, {"customers", "tenants", "users", "clientes", "inquilinos", "usuarios"}}},
			{groups: [][]string{{"blast radius", "global impact", "=regionalize", "correlated failure", "shared queue", "other availability zones", "can't kill", "cant kill", "radio de impacto"}}},
			{groups: [][]string{{"same rack", "same row", "same power feed", "same zone", "same failure domain", "same datacenter", "misma fila", "mismo rack", "misma zona", "mismo dominio de fallo", "mismo centro de datos"}, {"nodes", "replicas", "all", "cluster", "copies", "nodos", "replicas", "todos", "cluster", "copias"}}},
			{groups: [][]string{{"spread", "distribute", "split", "across", "repartir", "repartiremos", "distribuir", "entre"}, {"racks", "rows", "zones", "datacenters", "regions", "cells", "failure domains", "filas", "zonas", "centros de datos", "regiones", "celdas"}, {"independent", "separate", "isolated", "independiente", "independientes", "separados", "aislados"}}},
		},
	},
	"dependency-failure": {
		prior:  postmortem.RoleAmplifier,
		domain: []string{"provider", "vendor", "upstream", "dependency", "third party", "external", "proveedor", "dependencia"},
		cues: []cue{
			{groups: [][]string{{"upstream", "provider", "vendor", "third party", "dependency", "external", "proveedor", "dependencia", "externo"}, {"outage", "was down", "went down", "unavailable", "degraded", "failed", "failing", "errors", "mistakenly", "became slow", "slowed down", "timed out", "timeouts", "caida", "caido", "no disponible", "fallo", "errores", "por error"}}},
			{groups: [][]string{{"dependent", "dependencies", "depends on", "depend on", "relies on", "rely on", "relying on", "downstream", "dependientes", "dependen"}, {"impact", "impacted", "unavailable", "failures", "failed", "errors", "availability issues", "affected", "fallout", "impacto", "afectados"}}},
			{groups: [][]string{{"due to", "because of", "caused by", "as a result of", "preventing", "debido a", "a causa de", "impidiendo"}, {"being unavailable", "=unavailability", "became unavailable", "became unhealthy", "errors while reading from", "errors from", "failures from", "failures in", "timeouts from", "no estar disponible", "indisponibilidad", "errores de"}}},
			{groups: [][]string{{"downstream impact", "secondary fallout", "dependent services", "due to an underlying", "due to their dependency", "servicios dependientes"}}},
		},
	},
	"certificate-expiry": {
		prior:  postmortem.RoleTrigger,
		domain: []string{"certificate", "cert", "tls", "ssl", "https", "handshake", "certificado"},
		cues: []cue{
			{groups: [][]string{{"certificate", "certificates", "cert", "certs", "certificado", "credential", "credentials", "token", "credencial"}, {"expired", "expiry", "expiration", "lapsed", "caduco", "caducado", "vencido", "vencio"}}, weight: 0.6},
		},
	},
	"dns-failure": {
		prior:  postmortem.RoleTrigger,
		domain: []string{"dns", "resolve", "resolution", "record", "records", "zone", "nxdomain", "servfail", "lookup", "lookups", "resolucion", "registro"},
		weak:   []string{"dns record", "zone file", "registro dns"},
		cues: []cue{
			{groups: [][]string{{"dns", "name resolution", "=resolver", "=resolvers", "nameserver", "nameservers", "resolucion de nombres"}, {"failed", "failing", "failures", "empty", "could not", "timed out", "outage", "broke", "wrong", "incorrect", "issues", "problems", "unavailable", "fail", "fallo", "fallaba", "vacio", "caida", "incorrecto"}}},
		},
	},
	"time-handling": {
		prior:  postmortem.RoleTrigger,
		domain: []string{"time", "clock", "clocks", "date", "leap", "timezone", "midnight", "utc", "year", "reloj", "fecha", "hora"},
		cues: []cue{
			{groups: [][]string{{"clock", "clocks", "reloj", "relojes"}, {"skew", "drift", "backwards", "jumped", "wrong", "desfase", "deriva", "retrocedio"}}},
			{groups: [][]string{{"leap"}, {"second", "day", "year"}}},
			{groups: [][]string{{"date", "time", "fecha"}, {"calculation", "arithmetic", "overflow", "parsing", "calculo"}, {"bug", "error", "wrong", "fallo"}}},
		},
	},
	"split-brain": {
		prior:  postmortem.RoleAmplifier,
		domain: []string{"primary", "primaries", "leader", "master", "replica", "failover", "election", "writes", "primario", "lider", "replica"},
		cues: []cue{
			{groups: [][]string{{"two primaries", "two masters", "two leaders", "both primaries", "both masters", "dual primaries", "dual leaders", "multiple masters", "multiple primaries", "dos primarios", "dos maestros", "dos lideres", "ambos primarios"}}, weight: 0.6},
			{groups: [][]string{{"form", "formed", "forming", "elect", "elected", "electing", "formar", "formaron", "eligieron"}, {"own cluster", "own clusters", "separate cluster", "separate clusters", "new master", "second master", "another master", "propio cluster", "otro maestro"}}},
			{groups: [][]string{{"failover", "conmutacion por error"}, {"lost", "missing", "diverged", "inconsistent", "stale", "conflicting", "perdidas", "inconsistentes", "divergieron"}}},
		},
	},
	"traffic-surge": {
		prior:  postmortem.RoleTrigger,
		domain: []string{"launch", "press", "promotion", "sale", "news", "record", "campaign", "sign ups", "signups", "viral", "announcement", "black friday", "launch day", "marketing campaign", "breaking news", "went on sale", "lanzamiento", "campana", "noticia", "venta", "record"},
		weak:   []string{"surge in traffic", "traffic surge", "spike in traffic", "traffic spike", "black friday", "launch day", "marketing campaign", "breaking news", "tickets went on sale", "organic growth", "dia del lanzamiento", "campana de marketing", "noticia de ultima hora", "venta de entradas", "crecimiento organico"},
		cues: []cue{
			{groups: [][]string{{"spike", "surge", "peak", "flood", "influx", "wave", "pico", "aumento", "avalancha", "oleada"}, {"traffic", "users", "requests", "demand", "signups", "visitors", "trafico", "usuarios", "peticiones", "visitas"}, {"launch", "press", "promotion", "sale", "news", "campaign", "tv", "viral", "record", "hacker news", "announcement", "lanzamiento", "campana", "noticia", "venta", "record"}}, weight: 0.6},
			{groups: [][]string{{"abnormal number of", "abnormally high number of", "such a spike in traffic", "numero anormal de"}}},
		},
	},
	"hardware-failure": {
		prior:  postmortem.RoleTrigger,
		domain: []string{"failed", "died", "failure", "fault", "faulty", "overheated", "broke", "dead", "burned", "tripped", "outage", "lost", "fallo", "averia", "averiado", "defectuoso", "quemado", "corte"},
		cues: []cue{
			{groups: [][]string{{"power supply", "=generator", "=generators", "ups", "cooling", "chiller", "chillers", "drive", "drives", "nic", "rack", "psu", "hardware", "motherboard", "fuente de alimentacion", "generador", "refrigeracion", "disco duro"}, {"failed", "died", "failure", "fault", "faulty", "overheated", "broke", "dead", "fallo", "averia", "averiado", "defectuoso"}}},
			{groups: [][]string{{"power", "energia", "electricidad", "electrico"}, {"lost", "loss", "outage", "cut", "failure", "perdida", "corte"}, {"datacenter", "facility", "servers", "rack", "building", "centro de datos", "servidores"}}},
		},
	},
	"network-partition": {
		prior:  postmortem.RoleAmplifier,
		domain: []string{"fiber", "fibre", "bgp", "backbone", "carrier", "transit", "fibra", "troncal", "transito"},
		cues: []cue{
			{groups: [][]string{{"fiber", "fibre", "link", "links", "backbone", "transit", "carrier", "fibra", "enlace", "enlaces", "troncal"}, {"cut", "severed", "down", "failed", "lost", "withdrawn", "flapping", "fault", "faulty", "damaged", "degraded", "cortada", "cortado", "caido", "caida", "retiradas", "averia", "danada"}}},
			{groups: [][]string{{"connectivity", "packet loss", "conectividad"}, {"lost", "loss", "interrupted", "disrupted", "drop", "dropped", "perdida", "interrumpida"}}},
			{groups: [][]string{{"route", "routes", "routing", "advertisement", "advertising", "advertise", "bgp", "rutas", "enrutamiento"}, {"withdrawn", "diverted", "leak", "leaked", "propagating", "filtered out", "stopped", "more specific", "retiradas", "desviado"}}},
		},
	},
	"data-loss": {
		prior:  postmortem.RoleAmplifier,
		domain: dataNouns,
		cues: []cue{
			{groups: [][]string{{"deleted", "wiped", "dropped", "lost", "corrupted", "truncated", "overwrote", "overwritten", "discarded", "borramos", "borrados", "borro", "perdimos", "perdidos", "perdieron", "perdio", "corruptos", "sobrescribio", "descarto"}, dataNouns, {"permanently", "unrecoverable", "could not be recovered", "gone", "for good", "forever", "hours of", "irrecuperable", "definitivamente", "para siempre", "no se pudieron recuperar", "could not be restored", "not recoverable", "suffered data loss"}}, weight: 0.6},
			{groups: [][]string{{"corrupted", "corruption", "corrupt", "corrompio", "corruptos"}, join(dataNouns, []string{"repos", "content", "edits", "html", "wikitext", "objects", "contenido"})}},
			{groups: [][]string{{"suffered data loss", "amount of data loss", "lost some", "were unrecoverable", "perdida de datos"}}},
		},
	},
	"backup-failure": {
		prior:  postmortem.RoleContributing,
		domain: backupNouns,
		cues: []cue{
			{groups: [][]string{{"backup", "backups", "snapshot", "snapshots", "dump", "dumps", "tape", "copia de seguridad", "copias de seguridad"}, {"failed", "failing", "not working", "empty", "missing", "never", "disabled", "not enabled", "corrupt", "broken", "fallaban", "vacias", "nunca", "deshabilitadas"}, backupNouns}, weight: 0.6},
			{groups: [][]string{{"restore", "restoring", "restoration", "restauracion", "restaurar"}, {"took", "days", "hours", "slow", "manual", "never tested", "tardo", "dias", "horas"}, {"data", "database", "files", "backup", "backups", "datos", "base de datos", "archivos"}}},
		},
	},
}

// thingNames are catalogue phrases that name a thing (a component, a
// practice, a unit of deployment) rather than say that something happened to
// it: "availability zone" or "maintenance window" turn up in reports whose
// failure has nothing to do with isolation or maintenance. Like the words
// the catalogue calls weak alone (note 1), they count only next to a domain
// noun of the pattern; the mechanism has to be stated by a cue or by a
// phrase that says what happened. The list is ours, read off the
// catalogue's detection lists, in English and Spanish.
var thingNames = []string{
	// isolation, dependencies
	"availability zone", "failure domain", "cell-based architecture", "shuffle sharding", "cloud provider", "third-party", "hard dependency", "external API", "us-east-1", "transit provider", "upstream provider", "DNS provider",
	"zona de disponibilidad", "dominio de fallo", "proveedor de nube", "dependencia externa",
	// changes and maintenance
	"maintenance window", "maintenance event",
	"ventana de mantenimiento",
	// replication, time, certificates
	"leader election", "replication lag", "time zone", "signing certificate", "key rotation", "validity period", "intermediate certificate", "root certificate", "certificate chain", "SSL certificate", "TLS certificate", "monotonic clock", "midnight UTC", "new year",
	"eleccion de lider", "retraso de replicacion", "zona horaria",
	// backups and data
	"point-in-time recovery", "disaster recovery plan", "recovery time objective", "recovery point objective", "backup retention", "off-site backup", "tape backups", "data integrity", "referential integrity", "deletion script", "deletion pipeline", "hard delete",
	"plan de recuperacion", "integridad de datos",
	// pools, queues, caches, load
	"connection timeout", "idle connections", "file descriptors", "ephemeral ports", "queue depth", "message age", "dead-letter queue", "look-aside cache", "request coalescing", "retry budget", "token bucket", "admission control", "read-only mode", "degraded mode", "fallback path", "peak concurrent users", "time-to-live", "listen backlog", "keep-alive", "KeepAlive", "max_connections", "MaxRequestWorkers", "readiness probe", "liveness probe", "top of the hour",
	"control de admision", "modo solo lectura", "modo degradado",
	// facilities and network
	"power distribution unit", "backup generators", "uninterruptible power supply", "air handlers", "fire suppression", "backbone links", "BGP session",
	"generadores de respaldo", "sistema de alimentacion ininterrumpida",
}

// redirects drop a phrase's evidence for a pattern when the nouns around it
// point to a sibling (note 3: "thundering herd" is used loosely for cache
// stampedes; the cache-stampede cue picks it up there).
var redirects = []struct {
	phrase, from string
	when, unless markers
}{
	{"thundering herd", "thundering-herd",
		newMarkers("cache", "database", "db", "queries"), newMarkers("connect", "reconnect", "reconnected", "login", "boot", "session", "sessions")},
}

// Sentence markers that decide the role of the evidence found in a sentence.
var (
	// Lessons and action items point to a missing defence (note 2).
	lessonMarkers = newMarkers("we will", "will be", "we are going to", "we plan", "we need to", "we must", "should", "must", "need to", "to prevent", "to avoid", "in the future", "going forward", "action item", "action items", "lesson", "lessons", "we have concluded", "we concluded", "we learned", "follow up", "next steps", "whats next", "do not have", "dont have", "lacked", "lack of", "there was no", "we had no",
		"vamos a", "deberiamos", "deberia", "debemos", "tenemos que", "para evitar", "en el futuro", "a partir de ahora", "leccion", "lecciones", "proximos pasos", "no teniamos", "falta de", "hay que")
	// Headings that open a lessons section.
	lessonHeadings = newMarkers("lessons learned", "lessons", "action items", "whats next", "next steps", "follow up", "follow ups", "remediation", "prevention", "going forward", "what we are doing", "what were doing", "improvements",
		"lecciones aprendidas", "lecciones", "acciones", "proximos pasos", "medidas", "mejoras", "que haremos")
	// Headings that open a section on how the incident was ended.
	mitigationHeadings = newMarkers("mitigation", "mitigations", "resolution", "recovery", "how we fixed it", "how it was fixed", "remediation steps",
		"mitigacion", "resolucion", "recuperacion", "como lo resolvimos", "solucion")
	// Mitigation: what was done to end the incident.
	mitigationMarkers = newMarkers("resolved it by", "resolved by", "resolved the", "we resolved", "fixed it by", "fixed by", "solved by", "we solved", "mitigated", "to mitigate", "we mitigated", "by disabling", "we disabled", "we rolled back", "rolled back", "roll back", "rolling back", "reverted", "revert the", "we reverted", "we restarted", "allowed", "we let", "readmitted", "we added", "brought", "we turned off", "we switched off", "we have turned off", "turned off the system", "service was restored", "came back online",
		"lo resolvimos", "resolvimos", "solucionamos", "mitigamos", "para mitigar", "desactivamos", "revertimos", "reiniciamos", "restablecimos", "anadimos", "permitimos", "apagamos el sistema")
	// Causal words that mark a trigger when they appear early in the text.
	causalMarkers = newMarkers("triggered", "trigger", "caused by", "was caused", "began when", "started when", "started after", "root cause", "because of", "after we", "following a", "this morning we", "today we", "we made a change", "we took",
		"desencadeno", "causado por", "comenzo cuando", "empezo cuando", "causa raiz", "se origino", "hoy hicimos")
	// Markers of a sentence that says what was spared: its matches count as
	// negated.
	unharmedMarkers = newMarkers("not impacted", "not affected", "unaffected", "unimpacted", "not been impacted", "not been affected", "no impact", "no customer impact", "not experience", "did not see",
		"no fueron afectados", "no se vieron afectados", "no se vio afectado", "no afecto", "sin impacto", "no tuvo impacto")
	// Markers of a sentence that lists examples.
	enumerationMarkers = newMarkers("such as", "for example", "for instance", "eg", "e g", "including", "tales como", "como por ejemplo", "por ejemplo")
	// Words that negate a phrase just before it ("this was not a retry storm").
	negators = map[string]bool{"no": true, "not": true, "never": true, "without": true, "nor": true, "didnt": true, "wasnt": true, "werent": true, "isnt": true, "dont": true, "doesnt": true, "neither": true, "nunca": true, "sin": true, "ningun": true, "ninguna": true, "ni": true, "tampoco": true}
	// Words that show something went wrong. A text without any (a plan, a
	// process review, a smooth rollout) shows no failure pattern however many
	// of the pattern's words it uses.
	impactWords = map[string]bool{"outage": true, "outages": true, "down": true, "downtime": true, "failed": true, "failing": true, "failure": true, "failures": true, "error": true, "errors": true, "unavailable": true, "degraded": true, "crash": true, "crashed": true, "broke": true, "broken": true, "timeouts": true, "lost": true, "interruption": true, "interruptions": true, "disruption": true, "overloaded": true, "couldnt": true, "blackout": true, "inaccessible": true, "unreachable": true, "stopped": true, "damage": true, "slow": true, "slower": true, "affected": true, "impacted": true, "recovered": true, "restored": true, "mitigated": true, "resolved": true, "refused": true, "killed": true, "leaked": true, "missing": true,
		"caida": true, "caido": true, "cayo": true, "errores": true, "fallo": true, "fallaron": true, "fallaba": true, "fallos": true, "interrupcion": true, "perdieron": true, "perdimos": true, "perdio": true, "perdida": true, "perdidas": true, "corte": true, "aislo": true, "rechazo": true, "rechazaba": true, "caidas": true, "inalcanzable": true, "lentitud": true, "perdidos": true, "degradado": true, "sobrecargaron": true, "abrumado": true, "lento": true, "afectados": true, "afecto": true, "danos": true, "recuperamos": true, "restablecimos": true, "resuelto": true,
		// Portuguese, French, German and Italian write-ups keep English terms
		// (catalogue note 4) but tell the failure in their own words.
		"erros": true, "falha": true, "falhas": true, "falhou": true, "falharam": true, "indisponivel": true, "indisponibilidade": true, "queda": true, "caiu": true, "sobrecarregado": true, "lentidao": true, "interrupcao": true,
		"panne": true, "erreurs": true, "indisponible": true, "indisponibilite": true, "echec": true, "defaillance": true, "surcharge": true,
		"ausfall": true, "fehler": true, "storung": true, "unerreichbar": true, "uberlastet": true,
		"guasto": true, "errori": true, "disservizio": true, "interruzione": true, "indisponibile": true}
	// Words that end the reach of a negator.
	clauseBreaks = map[string]bool{"and": true, "but": true, "so": true, "because": true, "which": true, "y": true, "pero": true, "porque": true}
)
