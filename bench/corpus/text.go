package corpus

// Sentence templates. Slots in braces are filled per document: {svc} a
// service, {dep} another service it depends on, {n} a count, {pct} a
// percentage, {min} minutes, {region}, {team}, {ver} a version, {phrase}
// one of the pattern's detection phrases. Every sentence is our own wording.

// mechanism holds, per pattern slug, sentences that tell the pattern's
// mechanism in English and in Spanish.
var mechanism = map[string]struct{ en, es []string }{
	"feedback-loop": {
		en: []string{
			"Once {svc} started failing, its own recovery work added load to {dep}, which made {svc} fail harder.",
			"Reverting the trigger did not help: errors stayed above {pct}% for another {min} minutes because the system kept feeding itself.",
			"Throughput looked healthy on the dashboards while goodput was close to zero; most of the work was for requests that had already timed out.",
		},
		es: []string{
			"Cuando {svc} empezó a fallar, su propio trabajo de recuperación añadió carga a {dep}, lo que hizo fallar aún más a {svc}.",
			"Revertir el cambio no bastó: los errores siguieron por encima del {pct}% durante otros {min} minutos porque el sistema se realimentaba.",
		},
	},
	"retry-storm": {
		en: []string{
			"Every client of {svc} retried immediately on a timeout, so {dep} received about {n} times its normal request rate.",
			"Retries happened at three layers (the mobile app, the API gateway and the SDK), multiplying each failed call.",
			"The retry interval had no jitter, so the spikes repeated every few seconds in lockstep.",
		},
		es: []string{
			"Todos los clientes de {svc} reintentaban de inmediato tras un timeout, así que {dep} recibió unas {n} veces su tasa normal de peticiones.",
			"Los reintentos ocurrían en tres capas (la app móvil, el API gateway y el SDK), lo que multiplicaba cada llamada fallida.",
		},
	},
	"cache-stampede": {
		en: []string{
			"The cache in front of {dep} was flushed during the change, and the hit rate fell from {pct}% to almost nothing.",
			"With the cache cold, every request for the same key went to the database at once.",
			"Timeouts on the database kept the cache from refilling, so the miss rate stayed high.",
		},
		es: []string{
			"La caché delante de {dep} se vació durante el cambio y la tasa de aciertos cayó del {pct}% a casi nada.",
			"Con la caché fría, todas las peticiones de la misma clave fueron a la base de datos a la vez.",
		},
	},
	"thundering-herd": {
		en: []string{
			"When {svc} came back, about {n} thousand clients reconnected in the same second.",
			"A scheduled job on every host fired at the top of the hour and hit {dep} together.",
			"The clients had no randomised delay before reconnecting, so recovery itself caused a second spike.",
		},
		es: []string{
			"Cuando {svc} volvió, unos {n} mil clientes se reconectaron en el mismo segundo.",
			"Una tarea programada en todos los servidores se lanzó al inicio de la hora y golpeó a {dep} a la vez.",
		},
	},
	"cascading-overload": {
		en: []string{
			"When the first nodes of {svc} fell over, their load shifted to the remaining ones, which then failed in turn.",
			"Within minutes nearly all of the {svc} fleet was overloaded, one zone after another.",
			"Failing over to {region} moved the whole load there, and {region} had not been sized for it.",
		},
		es: []string{
			"Cuando cayeron los primeros nodos de {svc}, su carga pasó a los restantes, que fallaron a su vez.",
			"En pocos minutos casi toda la flota de {svc} estaba sobrecargada, una zona tras otra.",
		},
	},
	"connection-exhaustion": {
		en: []string{
			"The connection pool of {svc} to {dep} was capped at {n} connections and every one of them was in use.",
			"Idle keep-alive connections held the web workers, so new requests waited in the listen backlog.",
			"A code path leaked a connection on every error, and the pool drained within {min} minutes.",
		},
		es: []string{
			"El pool de conexiones de {svc} hacia {dep} tenía un máximo de {n} conexiones y todas estaban ocupadas.",
			"Las conexiones keep-alive inactivas retenían a los workers, así que las peticiones nuevas esperaban en cola.",
		},
	},
	"health-check-death-spiral": {
		en: []string{
			"The load balancer's health checks timed out under load, so healthy {svc} instances were removed from rotation.",
			"Each instance removed put more load on the rest, which then failed their checks too.",
			"The health check called {dep}, so a slow dependency marked the whole fleet unhealthy.",
		},
		es: []string{
			"Los health checks del balanceador expiraban bajo carga, así que instancias sanas de {svc} salieron de la rotación.",
			"Cada instancia retirada añadía carga al resto, que también empezó a fallar sus comprobaciones.",
		},
	},
	"queue-backlog": {
		en: []string{
			"The queue feeding {svc} grew to {n} million messages, the oldest more than {min} minutes old.",
			"Workers spent their time on messages whose callers had given up long ago.",
			"Draining the backlog took longer than the outage itself.",
		},
		es: []string{
			"La cola que alimenta a {svc} creció hasta {n} millones de mensajes, el más antiguo con más de {min} minutos.",
			"Los workers dedicaban el tiempo a mensajes cuyos clientes ya se habían rendido.",
		},
	},
	"resource-limit-reached": {
		en: []string{
			"{svc} reached a hard limit of {n} thousand open files that nobody had looked at since it was set.",
			"The disk holding the {dep} write-ahead log filled up and writes stopped.",
			"We had underestimated the load that the new feature put on {svc} by about {pct}%.",
		},
		es: []string{
			"{svc} alcanzó un límite fijo de {n} mil archivos abiertos que nadie revisaba desde que se configuró.",
			"El disco del log de escritura de {dep} se llenó y las escrituras se detuvieron.",
		},
	},
	"no-graceful-degradation": {
		en: []string{
			"{svc} had no way to shed load, so the only lever we had was to turn the whole site off.",
			"Non-critical traffic such as recommendations competed with checkout for the same capacity.",
			"There was no read-only mode we could switch to while {dep} recovered.",
		},
		es: []string{
			"{svc} no tenía forma de descartar carga, así que la única palanca era apagar todo el sitio.",
			"El tráfico no crítico, como las recomendaciones, competía con el pago por la misma capacidad.",
		},
	},
	"harmful-error-handling": {
		en: []string{
			"An automated repair job saw the errors and 'fixed' them by invalidating data that was actually correct.",
			"The fallback path in {svc} had never run in production and had a bug of its own.",
			"The error handler treated a timeout from {dep} as a permanent failure and deleted the record.",
		},
		es: []string{
			"Una tarea de reparación automática vio los errores y los 'corrigió' invalidando datos que eran correctos.",
			"La ruta de respaldo de {svc} nunca se había ejecutado en producción y tenía su propio error.",
		},
	},
	"bad-config-push": {
		en: []string{
			"A configuration change to {svc} was pushed to all regions at once instead of one region first.",
			"The new rule passed review but had a typo that no validation step caught.",
			"Reverting the config change restored service within {min} minutes once we found it.",
		},
		es: []string{
			"Un cambio de configuración en {svc} se desplegó en todas las regiones a la vez en lugar de en una primero.",
			"La nueva regla pasó la revisión pero tenía un error tipográfico que ninguna validación detectó.",
		},
	},
	"bad-deploy": {
		en: []string{
			"Version {ver} of {svc} introduced a regression in how it talked to {dep}.",
			"The canary looked fine because it received too little traffic to show the problem.",
			"We rolled back to the previous release, which took {min} minutes because the deploy pipeline was slow.",
		},
		es: []string{
			"La versión {ver} de {svc} introdujo una regresión en la comunicación con {dep}.",
			"Revertimos a la versión anterior, lo que llevó {min} minutos porque el pipeline de despliegue era lento.",
		},
	},
	"maintenance-triggered": {
		en: []string{
			"During routine maintenance in {region}, an operator took more {svc} servers offline than intended.",
			"The maintenance playbook assumed spare capacity that had been used up months earlier.",
			"A mistyped command during the migration drained the wrong cluster.",
		},
		es: []string{
			"Durante un mantenimiento rutinario en {region}, un operador dejó fuera de servicio más servidores de {svc} de lo previsto.",
			"El procedimiento de mantenimiento suponía una capacidad de reserva que se había agotado meses antes.",
		},
	},
	"insufficient-isolation": {
		en: []string{
			"All tenants shared one {dep} cluster, so a problem with one customer reached everyone.",
			"The failure propagated to every region because the control plane was global.",
			"{svc} was a single point of failure that sat on the request path of almost every product.",
		},
		es: []string{
			"Todos los clientes compartían un único clúster de {dep}, así que el problema de uno llegó a todos.",
			"El fallo se propagó a todas las regiones porque el plano de control era global.",
		},
	},
	"dependency-failure": {
		en: []string{
			"Our provider for {dep} had an outage of its own in {region}, and {svc} had a hard dependency on it.",
			"The status page was hosted on the same provider, so we could not even tell customers what was happening.",
			"We learned that {svc} depended on {dep} only when {dep} went away.",
		},
		es: []string{
			"Nuestro proveedor de {dep} sufrió su propia caída en {region} y {svc} dependía por completo de él.",
			"La página de estado estaba alojada en el mismo proveedor, así que ni siquiera podíamos informar a los clientes.",
		},
	},
	"certificate-expiry": {
		en: []string{
			"The TLS certificate for {svc} expired at midnight UTC and clients refused to connect.",
			"The renewal job had been failing silently for {n} weeks.",
			"An intermediate certificate in the chain was rotated, and older clients did not trust the new one.",
		},
		es: []string{
			"El certificado TLS de {svc} caducó a medianoche UTC y los clientes rechazaron la conexión.",
			"La tarea de renovación llevaba {n} semanas fallando sin avisar.",
		},
	},
	"dns-failure": {
		en: []string{
			"A change to the zone file published an empty record for {svc}, and resolvers cached it for the full TTL.",
			"Clients could not resolve {dep}, so every call failed before it left the host.",
			"Our DNS provider returned SERVFAIL for about {min} minutes.",
		},
		es: []string{
			"Un cambio en el archivo de zona publicó un registro vacío para {svc} y los resolutores lo guardaron durante todo el TTL.",
			"Los clientes no podían resolver {dep}, así que cada llamada fallaba antes de salir del servidor.",
		},
	},
	"time-handling": {
		en: []string{
			"A leap second made the clock on some {svc} hosts repeat a second, and a timer loop spun at full CPU.",
			"Code that computed expiry dates assumed every year has 365 days and broke on February 29.",
			"Clock skew of several seconds between hosts made {dep} reject valid tokens.",
		},
		es: []string{
			"Un segundo intercalar hizo que el reloj de algunos servidores de {svc} repitiera un segundo y un bucle de temporizador consumió toda la CPU.",
			"El código que calculaba fechas de caducidad suponía que todos los años tienen 365 días y falló el 29 de febrero.",
		},
	},
	"split-brain": {
		en: []string{
			"After the partition, two {dep} nodes each believed they were the primary and accepted writes.",
			"The promoted replica was {min} minutes behind, so recent writes were missing after failover.",
			"Fencing of the old primary did not work, and the two copies of the data diverged.",
		},
		es: []string{
			"Tras la partición, dos nodos de {dep} creyeron ser el primario y aceptaron escrituras.",
			"La réplica promovida llevaba {min} minutos de retraso, así que faltaban escrituras recientes tras la conmutación.",
		},
	},
	"traffic-surge": {
		en: []string{
			"A marketing campaign brought {n} times the usual number of visitors to {svc} within an hour.",
			"The launch went viral and traffic reached a record we had never load tested for.",
			"Ticket sales opened at 10:00 and sign-ups peaked at {pct}% above the forecast.",
		},
		es: []string{
			"Una campaña de marketing trajo {n} veces el número habitual de visitantes a {svc} en una hora.",
			"El lanzamiento se hizo viral y el tráfico alcanzó un récord para el que nunca habíamos hecho pruebas de carga.",
		},
	},
	"hardware-failure": {
		en: []string{
			"A power distribution unit failed in one row of the {region} datacenter and took {n} racks down.",
			"The backup generators started but one of them failed after {min} minutes.",
			"A faulty NIC on the {dep} primary dropped packets for hours before anyone noticed.",
		},
		es: []string{
			"Falló una unidad de distribución de energía en una fila del centro de datos de {region} y cayeron {n} racks.",
			"Los generadores de respaldo arrancaron, pero uno de ellos falló a los {min} minutos.",
		},
	},
	"network-partition": {
		en: []string{
			"A fibre cut between {region} and the rest of the backbone isolated half of the {svc} cluster.",
			"Packet loss between zones reached {pct}%, and calls from {svc} to {dep} timed out.",
			"Our transit provider withdrew routes, and the site was unreachable from several countries.",
		},
		es: []string{
			"Un corte de fibra entre {region} y el resto de la red troncal aisló a la mitad del clúster de {svc}.",
			"La pérdida de paquetes entre zonas llegó al {pct}% y las llamadas de {svc} a {dep} expiraban.",
		},
	},
	"data-loss": {
		en: []string{
			"A cleanup script ran against production instead of staging and deleted {n} thousand rows from {dep}.",
			"A bug in the migration silently corrupted records written during a {min}-minute window.",
			"Some of the data could not be recovered and had to be rebuilt from logs.",
		},
		es: []string{
			"Un script de limpieza se ejecutó contra producción en lugar de staging y borró {n} mil filas de {dep}.",
			"Un error en la migración corrompió en silencio los registros escritos durante {min} minutos.",
		},
	},
	"backup-failure": {
		en: []string{
			"When we went to restore {dep}, the most recent backups were empty.",
			"The restore took {n} hours because nobody had ever timed one at this size.",
			"Snapshots had been disabled during an earlier migration and never switched back on.",
		},
		es: []string{
			"Cuando fuimos a restaurar {dep}, las copias de seguridad más recientes estaban vacías.",
			"La restauración llevó {n} horas porque nadie la había cronometrado nunca con este tamaño.",
		},
	},
}

// quoting carries one detection phrase in a sentence that reads well
// whatever the phrase's grammar.
var quoting = struct{ en, es []string }{
	en: []string{
		`The on-call notes mention "{phrase}" several times.`,
		`One responder summed it up in the incident channel as "{phrase}".`,
		`In the review the team kept coming back to one phrase: {phrase}.`,
		`The alert that finally fired was titled "{phrase} on {svc}".`,
		`Search for "{phrase}" in the runbooks returned nothing useful.`,
	},
	es: []string{
		`Las notas de guardia mencionan «{phrase}» varias veces.`,
		`Una de las personas de guardia lo resumió en el canal del incidente como «{phrase}».`,
		`En la revisión el equipo volvía una y otra vez a la misma expresión: {phrase}.`,
		`La alerta que por fin saltó se titulaba «{phrase} en {svc}».`,
	},
}

// headline titles an incident by its trigger.
var headline = map[string]struct{ en, es string }{
	"feedback-loop":             {"{svc} stuck in a degraded state", "{svc} atascado en un estado degradado"},
	"retry-storm":               {"retries overwhelm {dep}", "los reintentos saturan {dep}"},
	"cache-stampede":            {"cache flush overloads {dep}", "el vaciado de caché sobrecarga {dep}"},
	"thundering-herd":           {"reconnect surge after {svc} recovery", "avalancha de reconexiones tras recuperar {svc}"},
	"cascading-overload":        {"cascading overload across {svc}", "sobrecarga en cascada en {svc}"},
	"connection-exhaustion":     {"{svc} runs out of connections", "{svc} se queda sin conexiones"},
	"health-check-death-spiral": {"health checks empty the {svc} pool", "los health checks vacían el pool de {svc}"},
	"queue-backlog":             {"{svc} queue backlog delays processing", "la cola de {svc} retrasa el procesamiento"},
	"resource-limit-reached":    {"{svc} hits a hard limit", "{svc} alcanza un límite fijo"},
	"no-graceful-degradation":   {"full outage of {svc} under load", "caída total de {svc} bajo carga"},
	"harmful-error-handling":    {"automated repair corrupts {dep}", "una reparación automática corrompe {dep}"},
	"bad-config-push":           {"bad configuration push breaks {svc}", "un cambio de configuración rompe {svc}"},
	"bad-deploy":                {"{svc} release {ver} causes errors", "la versión {ver} de {svc} provoca errores"},
	"maintenance-triggered":     {"maintenance in {region} takes down {svc}", "un mantenimiento en {region} tumba {svc}"},
	"insufficient-isolation":    {"{dep} problem spreads to every region", "un problema de {dep} se extiende a todas las regiones"},
	"dependency-failure":        {"provider outage takes down {svc}", "la caída de un proveedor tumba {svc}"},
	"certificate-expiry":        {"expired certificate breaks {svc}", "un certificado caducado rompe {svc}"},
	"dns-failure":               {"DNS failure makes {svc} unreachable", "un fallo de DNS deja {svc} inaccesible"},
	"time-handling":             {"clock bug stops {svc}", "un error de reloj detiene {svc}"},
	"split-brain":               {"split brain in {dep} after failover", "cerebro dividido en {dep} tras la conmutación"},
	"traffic-surge":             {"traffic surge overwhelms {svc}", "un pico de tráfico desborda {svc}"},
	"hardware-failure":          {"power failure in {region}", "corte de energía en {region}"},
	"network-partition":         {"network partition isolates {svc}", "una partición de red aísla {svc}"},
	"data-loss":                 {"data deleted from {dep}", "datos borrados de {dep}"},
	"backup-failure":            {"failed restore of {dep}", "restauración fallida de {dep}"},
}

// The other sentences of a write-up, by section.
var (
	summaryText = struct{ en, es []string }{
		en: []string{
			"For {min} minutes, {svc} returned errors to about {pct}% of requests.",
			"Customers could not use {svc} for {min} minutes; {dep} was slow for longer.",
			"{svc} was degraded for {min} minutes and unavailable for part of that time.",
		},
		es: []string{
			"Durante {min} minutos, {svc} devolvió errores en torno al {pct}% de las peticiones.",
			"Los clientes no pudieron usar {svc} durante {min} minutos; {dep} estuvo lento durante más tiempo.",
		},
	}
	impactText = struct{ en, es []string }{
		en: []string{
			"About {pct}% of requests to {svc} failed during the worst {min} minutes.",
			"Roughly {n} thousand users saw errors or timeouts.",
			"No data was lost, but {n} thousand jobs were delayed.",
			"Support received {n}0 tickets during the incident.",
			"The error budget of {svc} for the quarter was used up by this one event.",
		},
		es: []string{
			"Cerca del {pct}% de las peticiones a {svc} fallaron durante los peores {min} minutos.",
			"Unos {n} mil usuarios vieron errores o tiempos de espera agotados.",
			"No se perdieron datos, pero se retrasaron {n} mil trabajos.",
			"Soporte recibió {n}0 tickets durante el incidente.",
		},
	}
	// timelineText is in the order things happen; investigating lines go
	// between "incident declared" and "change identified".
	timelineText = struct{ en, es []string }{
		en: []string{
			"Alert fires for elevated error rate on {svc}.",
			"On-call engineer from {team} acknowledges the page.",
			"Incident declared; {team} joins the call.",
			"Latency of {dep} rises above {n} seconds at p99.",
			"First customer reports arrive through support.",
			"Status page updated: investigating.",
			"Change to {svc} identified as a likely cause.",
			"Mitigation applied; error rate starts to fall.",
			"Traffic restored in steps to {pct}%.",
			"Error rate back to normal; monitoring.",
			"Incident closed.",
		},
		es: []string{
			"Salta la alerta por tasa de errores elevada en {svc}.",
			"La persona de guardia de {team} atiende el aviso.",
			"Se declara el incidente; {team} se une a la llamada.",
			"La latencia de {dep} supera los {n} segundos en el p99.",
			"Llegan los primeros avisos de clientes a soporte.",
			"Se actualiza la página de estado: investigando.",
			"Se identifica un cambio en {svc} como causa probable.",
			"Se aplica la mitigación; la tasa de errores empieza a bajar.",
			"Se restablece el tráfico por pasos hasta el {pct}%.",
			"Tasa de errores normal; en observación.",
			"Se cierra el incidente.",
		},
	}
	investigatingText = struct{ en, es []string }{
		en: []string{
			"{team} checks the dashboards of {dep}; nothing obvious.",
			"Error rate on {svc} reaches {pct}%.",
			"Failover of {dep} to {region} considered and rejected.",
			"Engineers from {team} start reading the logs of {svc}.",
			"Latency of {svc} at p99 climbs to {n} seconds.",
			"A restart of {n} {svc} instances brings no improvement.",
			"Rollback of the last change to {dep} started.",
			"Rollback complete; errors continue.",
			"Capacity of {svc} raised by {pct}%.",
			"Customer support asks for an update for the status page.",
		},
		es: []string{
			"{team} revisa los paneles de {dep}; nada evidente.",
			"La tasa de errores de {svc} llega al {pct}%.",
			"Se plantea conmutar {dep} a {region} y se descarta.",
			"Ingenieros de {team} empiezan a leer los logs de {svc}.",
			"La latencia p99 de {svc} sube a {n} segundos.",
			"Reiniciar {n} instancias de {svc} no mejora nada.",
			"Se inicia la reversión del último cambio en {dep}.",
		},
	}
	// discussionText lengthens long write-ups with the reasoning around the
	// incident.
	discussionText = struct{ en, es []string }{
		en: []string{
			"Looking back, the signs were there in the weeks before: {svc} had been close to its limits during every weekly peak.",
			"The design of {svc} dates from a time when it served a tenth of today's traffic.",
			"Several people on the call had different mental models of how {svc} talks to {dep}.",
			"We had load tested {svc}, but never with {dep} slow at the same time.",
			"Part of the delay came from waiting for access to the production consoles.",
			"The metrics we needed existed, but nobody had put them on a dashboard.",
			"Our runbook said to restart {svc}, which in this case made things worse for a while.",
			"The change itself was reviewed by two people and looked harmless in isolation.",
			"Alerts from {dep} and {svc} fired at the same time and pointed in different directions.",
			"A similar event happened in {region} last year, but the follow-up actions were never finished.",
			"The on-call engineer was new to {team} and had not handled {svc} before.",
			"Dependencies between {svc} and {dep} were not written down anywhere.",
		},
		es: []string{
			"Visto ahora, había señales en las semanas anteriores: {svc} rozaba sus límites en cada pico semanal.",
			"El diseño de {svc} es de cuando atendía una décima parte del tráfico actual.",
			"Varias personas de la llamada tenían ideas distintas de cómo habla {svc} con {dep}.",
			"Habíamos hecho pruebas de carga de {svc}, pero nunca con {dep} lento a la vez.",
			"Parte del retraso vino de esperar acceso a las consolas de producción.",
			"Las métricas que necesitábamos existían, pero nadie las había puesto en un panel.",
			"Nuestro runbook decía reiniciar {svc}, lo que en este caso empeoró las cosas durante un rato.",
			"Las dependencias entre {svc} y {dep} no estaban escritas en ningún sitio.",
		},
	}
	detectionText = struct{ en, es []string }{
		en: []string{
			"We were alerted by the error-rate alarm on {svc} {n} minutes after the start.",
			"Customers noticed before our monitoring did; the first alert fired {n} minutes later.",
			"The synthetic checks from {region} caught the problem first.",
		},
		es: []string{
			"Nos avisó la alarma de tasa de errores de {svc} {n} minutos después del inicio.",
			"Los clientes lo notaron antes que nuestra monitorización; la primera alerta saltó {n} minutos después.",
		},
	}
	resolutionText = struct{ en, es []string }{
		en: []string{
			"We stopped the change, added capacity to {svc} and let the backlog drain.",
			"Service recovered once {dep} was restarted and traffic was brought back in steps.",
			"The fix was a one-line change, but finding it took most of the incident.",
		},
		es: []string{
			"Detuvimos el cambio, añadimos capacidad a {svc} y dejamos que se vaciara la cola.",
			"El servicio se recuperó al reiniciar {dep} y devolver el tráfico por pasos.",
		},
	}
	wentWellText = struct{ en, es []string }{
		en: []string{"The incident channel stayed focused and calm.", "Rollback tooling worked the first time.", "Status page updates went out every {n} minutes.", "The runbook for {svc} was accurate."},
		es: []string{"El canal del incidente se mantuvo centrado y tranquilo.", "La herramienta de rollback funcionó a la primera.", "La página de estado se actualizó cada {n} minutos."},
	}
	wentWrongText = struct{ en, es []string }{
		en: []string{"Dashboards for {dep} were missing key metrics.", "It took {n} minutes to find who owned {svc}.", "The alert was too noisy to be trusted.", "Nobody had practised this failure mode."},
		es: []string{"Faltaban métricas clave en los paneles de {dep}.", "Tardamos {n} minutos en saber quién era responsable de {svc}.", "La alerta era demasiado ruidosa para fiarse de ella."},
	}
	luckyText = struct{ en, es []string }{
		en: []string{"The incident happened outside peak hours.", "An engineer who had built {svc} happened to be online.", "The batch jobs that depend on {dep} were not scheduled that day."},
		es: []string{"El incidente ocurrió fuera de las horas punta.", "Una ingeniera que había construido {svc} estaba conectada por casualidad."},
	}
	actionText = struct{ en, es []string }{
		en: []string{"Add an alert on {phrase} for {svc}", "Document the recovery steps for {svc} in the runbook", "Load test {svc} past saturation", "Add a kill switch for non-critical features of {svc}", "Review limits and quotas of {dep}", "Stage config changes region by region", "Add jitter and a retry budget to clients of {dep}", "Practise this failure in a game day"},
		es: []string{"Añadir una alerta sobre {phrase} en {svc}", "Documentar en el runbook los pasos de recuperación de {svc}", "Hacer pruebas de carga de {svc} más allá de la saturación", "Revisar límites y cuotas de {dep}", "Desplegar los cambios de configuración región a región"},
	}
	lessonText = struct{ en, es []string }{
		en: []string{"We lacked a defence against {phrase}.", "Next time we want {phrase} to be caught before it reaches production.", "The main lesson: plan for {phrase} explicitly."},
		es: []string{"Nos faltaba una defensa contra {phrase}.", "La próxima vez queremos detectar {phrase} antes de llegar a producción."},
	}
)

var sectionNames = map[string]struct{ en, es string }{
	"summary":    {"Summary", "Resumen"},
	"impact":     {"Impact", "Impacto"},
	"timeline":   {"Timeline", "Cronología"},
	"cause":      {"Root cause", "Causa raíz"},
	"detection":  {"Detection", "Detección"},
	"resolution": {"Resolution", "Resolución"},
	"well":       {"What went well", "Qué salió bien"},
	"wrong":      {"What went wrong", "Qué salió mal"},
	"lucky":      {"Where we got lucky", "Dónde tuvimos suerte"},
	"actions":    {"Action items", "Acciones"},
	"lessons":    {"Lessons", "Lecciones"},
}

var (
	services = []string{
		"checkout API", "payments gateway", "search cluster", "login service", "image CDN", "notification workers",
		"order database", "session store", "API gateway", "message queue", "billing batch", "recommendation service",
		"inventory service", "user profile service", "email delivery", "mobile backend", "metrics pipeline",
		"feature flag service", "identity provider", "object storage", "shipping service", "pricing engine",
		"chat backend", "video transcoder", "ad server", "web frontend", "GraphQL layer", "auth token service",
		"Kafka cluster", "Redis cache", "Postgres primary", "Elasticsearch cluster", "load balancer tier",
		"job scheduler", "webhook dispatcher", "analytics warehouse", "config service", "DNS edge", "VPN gateway",
	}
	teams   = []string{"SRE", "Platform", "Payments", "Storage", "Networking", "Core API", "Mobile", "Data", "Identity", "Edge"}
	regions = []string{"us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-southeast-2", "ap-northeast-1",
		"the Frankfurt datacenter", "the Dublin datacenter", "the Virginia datacenter", "sa-east-1"}
	orgFirst = []string{"Northwind", "Bluefin", "Halcyon", "Tessera", "Quillon", "Brightwater", "Corvid", "Larkspur",
		"Meridian", "Ostrava", "Pinecrest", "Redshank", "Saltmarsh", "Tidewell", "Umberfield", "Vantage", "Willowby",
		"Yarrow", "Zephyr", "Alderglen", "Basalt", "Cobalt", "Driftwood", "Emberline", "Foxglove", "Granite",
		"Heronsgate", "Ironbark", "Juniper", "Kestrel", "Lumen", "Moorland", "Nimbus", "Orchard", "Palisade",
		"Quarry", "Riverside", "Sable", "Thistle", "Upland"}
	orgSecond = []string{"Payments", "Cloud", "Labs", "Logistics", "Health", "Media", "Games", "Bank", "Systems",
		"Networks", "Retail", "Travel", "Mobility", "Analytics", "Security", "Energy", "Telecom", "Software",
		"Foods", "Insurance"}
)
