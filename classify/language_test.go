package classify_test

import (
	"testing"

	"hindsight/classify"
)

func TestDetectLanguage(t *testing.T) {
	tests := []struct {
		want, text string
	}{
		{"en", "At 14:05 UTC a configuration change was pushed to all regions, and the API started returning 503 errors to most customers."},
		{"en", "We rolled back the deploy and the error rate went back to normal."},
		{"es", "A las 14:05 UTC se desplegó un cambio de configuración en todas las regiones y la API empezó a devolver errores 503 a la mayoría de los clientes."},
		{"es", "Los health checks del balanceador fallaban porque todos los workers de Apache estaban ocupados con conexiones keep-alive."},
		{"fr", "À 14h05 UTC, un changement de configuration a été déployé dans toutes les régions et l'API a commencé à renvoyer des erreurs 503 à la plupart des clients."},
		{"de", "Um 14:05 UTC wurde eine Konfigurationsänderung in alle Regionen ausgerollt, und die API lieferte den meisten Kunden Fehler 503."},
		{"pt", "Às 14h05 UTC, uma alteração de configuração foi implantada em todas as regiões e a API começou a devolver erros 503 para a maioria dos clientes."},
		{"it", "Alle 14:05 UTC una modifica della configurazione è stata distribuita in tutte le regioni e l'API ha iniziato a restituire errori 503 alla maggior parte dei clienti."},
		{"ja", "14時5分（UTC）に設定変更がすべてのリージョンに反映され、APIがほとんどの顧客に503エラーを返し始めました。"},
		{"ja", "データベースの接続プールが枯渇し、サービスが約二時間停止しました。"},
	}
	for _, tt := range tests {
		if got := classify.DetectLanguage(tt.text); got != tt.want {
			t.Errorf("DetectLanguage(%.40q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}
