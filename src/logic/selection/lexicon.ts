/**
 * A small general-purpose Spanish/French/German → English lexicon of common request words
 * (task verbs, document and business nouns, qualifiers). No npm package ships bilingual
 * dictionaries, so this list is written by hand; it is deliberately generic and does not name
 * catalog agents. Cognates the trigram matcher already catches ("urgencia", "contrato") need no
 * entry. Keys are folded (lowercase, no diacritics) surface words; lookups also try the
 * language's stem, so inflected forms match.
 */
import { Language, fold, stem } from './text.js';

const ES: Readonly<Record<string, string>> = {
  traducir: 'translate', traduccion: 'translation', traduce: 'translate', resumir: 'summarize', resumen: 'summary',
  escribir: 'write', escribe: 'write', redactar: 'draft', revisar: 'review', revisa: 'review', comprobar: 'check',
  buscar: 'search', busca: 'find', encontrar: 'find', encuentra: 'find', crear: 'create', generar: 'generate',
  analizar: 'analyze', calcular: 'compute', estimar: 'estimate', extraer: 'extract', clasificar: 'classify',
  enviar: 'send', programar: 'schedule', planificar: 'plan', corregir: 'fix', vale: 'worth', valor: 'value',
  precio: 'price', barato: 'cheap', vuelo: 'flight', vuelos: 'flight', hotel: 'hotel', viaje: 'trip',
  piso: 'apartment', casa: 'house', vivienda: 'home', alquiler: 'rent', arrendamiento: 'lease', contrato: 'contract',
  tribunal: 'court', juzgado: 'court', ley: 'law', abogado: 'legal', factura: 'invoice', gasto: 'expense',
  cliente: 'customer', clientes: 'customer', correo: 'email', mensaje: 'message', pregunta: 'question',
  medicamento: 'medication', medicamentos: 'medication', farmaco: 'drug', sintoma: 'symptom', medico: 'physician',
  codigo: 'code', prueba: 'test', pruebas: 'test', error: 'bug', datos: 'data', tabla: 'table', grafico: 'chart',
  venta: 'sales', ventas: 'sales', paquete: 'parcel', envio: 'shipment', empleo: 'job', candidato: 'candidate',
  entrevista: 'interview', examen: 'quiz', ensayo: 'essay', imagen: 'image', video: 'video', audio: 'audio',
  subtitulos: 'subtitle', ingles: 'english', seguridad: 'security', contrasena: 'password', soporte: 'support',
  equipo: 'team', urgente: 'urgent', riesgo: 'risk', fraude: 'fraud', pago: 'payment', impuesto: 'tax',
};

const FR: Readonly<Record<string, string>> = {
  traduire: 'translate', traduction: 'translation', resumer: 'summarize', resume: 'summary', ecrire: 'write',
  rediger: 'draft', relire: 'proofread', verifier: 'check', reviser: 'review', chercher: 'search', trouver: 'find',
  trouve: 'find', creer: 'create', generer: 'generate', analyser: 'analyze', estimer: 'estimate', extraire: 'extract',
  classer: 'classify', envoyer: 'send', planifier: 'plan', corriger: 'fix', prendre: 'take', vaut: 'worth',
  valeur: 'value', prix: 'price', cher: 'expensive', vol: 'flight', vols: 'flight', billet: 'ticket', voyage: 'trip',
  hotel: 'hotel', logement: 'accommodation', appartement: 'apartment', maison: 'house', loyer: 'rent', bail: 'lease',
  contrat: 'contract', tribunal: 'court', loi: 'law', avocat: 'legal', facture: 'invoice', depense: 'expense',
  client: 'customer', courriel: 'email', message: 'message', medicament: 'medication', medicaments: 'medication',
  traitement: 'medication', ordonnance: 'prescription', symptome: 'symptom', medecin: 'physician', code: 'code',
  test: 'test', bogue: 'bug', donnees: 'data', tableau: 'table', graphique: 'chart', ventes: 'sales', colis: 'parcel',
  livraison: 'delivery', emploi: 'job', candidat: 'candidate', entretien: 'interview', devoir: 'homework',
  dissertation: 'essay', image: 'image', sous: 'sub', titres: 'titles', anglais: 'english', securite: 'security',
  mot: 'word', passe: 'pass', assistance: 'support', equipe: 'team', urgent: 'urgent', risque: 'risk', fraude: 'fraud',
  paiement: 'payment', impot: 'tax', recette: 'recipe',
};

const DE: Readonly<Record<string, string>> = {
  ubersetzen: 'translate', ubersetzung: 'translation', ubersetze: 'translate', zusammenfassen: 'summarize',
  zusammenfassung: 'summary', schreiben: 'write', schreibe: 'write', entwerfen: 'draft', prufen: 'check',
  prufe: 'check', uberprufen: 'review', suchen: 'search', suche: 'search', finden: 'find', finde: 'find',
  erstellen: 'create', erstelle: 'create', generieren: 'generate', analysieren: 'analyze', schatzen: 'estimate',
  extrahieren: 'extract', klassifizieren: 'classify', senden: 'send', planen: 'plan', beheben: 'fix', wert: 'value',
  preis: 'price', gunstig: 'cheap', billig: 'cheap', flug: 'flight', fluge: 'flight', reise: 'trip', hotel: 'hotel',
  unterkunft: 'accommodation', wohnung: 'apartment', haus: 'house', miete: 'rent', mietvertrag: 'lease',
  vertrag: 'contract', gericht: 'court', gesetz: 'law', anwalt: 'legal', rechnung: 'invoice', ausgabe: 'expense',
  kunde: 'customer', kunden: 'customer', nachricht: 'message', frage: 'question', fragen: 'questions',
  medikament: 'medication', medikamente: 'medication', arzneimittel: 'drug', symptom: 'symptom', arzt: 'physician',
  code: 'code', fehler: 'bug', fehlerbehandlung: 'error handling', daten: 'data', tabelle: 'table', diagramm: 'chart',
  umsatz: 'sales', paket: 'parcel', sendung: 'shipment', stelle: 'job', bewerber: 'candidate', vorstellungsgesprach: 'interview',
  aufsatz: 'essay', bild: 'image', untertitel: 'subtitle', englisch: 'english', sicherheit: 'security',
  passwort: 'password', support: 'support', team: 'team', dringend: 'urgent', risiko: 'risk', betrug: 'fraud',
  zahlung: 'payment', steuer: 'tax', kapitel: 'chapter', losung: 'answer', losungsschlussel: 'answer key',
};

function build(language: Language, entries: Readonly<Record<string, string>>): Map<string, string[]> {
  const map = new Map<string, string[]>();
  const add = (key: string, value: string): void => {
    const list = map.get(key) ?? [];
    if (!list.includes(value)) list.push(value);
    map.set(key, list);
  };
  for (const [word, english] of Object.entries(entries)) {
    const folded = fold(word);
    add(folded, english);
    add(`~${stem(folded, language)}`, english);
  }
  return map;
}

const LEXICONS: ReadonlyMap<Language, Map<string, string[]>> = new Map([
  [Language.ES, build(Language.ES, ES)],
  [Language.FR, build(Language.FR, FR)],
  [Language.DE, build(Language.DE, DE)],
]);

/** English words (possibly several, space-separated) a foreign word may mean; [] when unknown. */
export function translations(language: Language, folded: string, wordStem: string): readonly string[] {
  const lexicon = LEXICONS.get(language);
  if (lexicon === undefined) return [];
  const found = lexicon.get(folded) ?? lexicon.get(`~${wordStem}`) ?? [];
  return found.flatMap((w) => w.split(' '));
}
