import type { Language } from './stemmers.js';

/**
 * Fields of meaning that tag descriptions and prompts are read into, so that "coding: programming
 * questions" fits "write a quicksort in Rust" although they share no word. Each field lists words in
 * English, French, Spanish and German (matched by their Snowball stem, so `invoices`/`invoice`,
 * `factures`/`facture`, `Rechnungen`/`Rechnung` meet) and names that are the same in every language
 * (`python`, `sql`, `kubernetes`), matched as they are. A word may belong to several fields (`bug`: code
 * and technical support). Two-word terms match two consecutive words.
 */
export interface IntentField {
  name: string;
  /** Terms of each language, `|`-separated. */
  words: Readonly<Partial<Record<Language, string>>>;
  /** Names written alike in every language (lower case, unstemmed). */
  names?: string;
}

export const INTENT_FIELDS: readonly IntentField[] = [
  {
    name: 'programming',
    words: {
      en: 'code|coding|coder|program|programming|programmer|software|developer|development|function|method|class|variable|bug|debug|debugging|compile|compiler|script|algorithm|sort|sorting|recursion|recursive|loop|array|library|framework|commit|branch|merge|rebase|repository|refactor|unit test|exception|stack trace|segfault|pointer|syntax|implement|implementation|binary search|linked list|hash map|string|integer|runtime|thread|async|callback|closure|generic|interface|struct|enum|lambda|component|render|dependency|package|install fails|compile error|type error|undefined|null|api|endpoint|frontend|backend|web app|snippet|cli|terminal|command line|programming language|source code|pull request|data structure|coroutine|vector|iterator|regex|regular expression|query|database',
      fr: 'code|coder|programmation|programmer|logiciel|développeur|développement|fonction|méthode|classe|variable|bogue|déboguer|compiler|script|algorithme|trier|tri|boucle|tableau|liste chaînée|chaîne|dépôt|bibliothèque|requête|base de données',
      es: 'código|programación|programar|programador|software|desarrollador|desarrollo|función|método|clase|variable|depurar|compilar|script|algoritmo|ordenar|bucle|arreglo|lista enlazada|cadena|repositorio|biblioteca|librería|consulta|base de datos',
      de: 'code|programmierung|programmieren|programmierer|software|entwickler|entwicklung|funktion|methode|klasse|variable|debuggen|kompilieren|skript|algorithmus|sortieren|schleife|zeichenkette|bibliothek|abfrage|datenbank|programm',
    },
    names:
      'python|java|javascript|typescript|rust|golang|kotlin|swift|ruby|php|perl|scala|haskell|elixir|clojure|c#|cpp|c++|html|css|react|vue|angular|svelte|node|nodejs|npm|pip|django|flask|fastapi|spring|rails|laravel|express|docker|kubernetes|k8s|git|github|gitlab|bash|powershell|linux|sql|json|yaml|xml|http|https|cors|jsx|tsx|webpack|vite|pytest|jest|junit|useeffect|usestate|quicksort|mergesort|bubble|dijkstra|oop|async|await|stdout|stderr|eresolve|vscode|ide|regex|grpc|graphql|api|sdk|cli|postgres|postgresql|mysql|sqlite|mongodb|redis|kafka|rabbitmq|nginx|terraform|ansible|aws|gcp|azure|lambda|dockerfile|makefile|cmake|gradle|maven|cargo',
  },
  {
    name: 'math',
    words: {
      en: 'math|maths|mathematics|mathematical|equation|equations|solve|algebra|calculus|derivative|integral|integrate|differentiate|limit|matrix|probability|proof|prove|theorem|geometry|triangle|circle|area|angle|fraction|percentage|percent|root|roots|quadratic|polynomial|logarithm|sum|multiply|divide|division|prime|arithmetic|formula|homework|dice|die|statistics|exponent|square root|linear|inequality',
      fr: 'mathématiques|maths|équation|résoudre|algèbre|dérivée|intégrale|probabilité|démonstration|démontrer|théorème|géométrie|triangle|cercle|aire|fraction|pourcentage|racine|polynôme|calcul|calculer|combien font|fois|devoirs',
      es: 'matemáticas|ecuación|resolver|álgebra|derivada|integral|probabilidad|demostración|demostrar|teorema|geometría|triángulo|círculo|área|fracción|porcentaje|raíz|polinomio|calcular|cálculo|deberes',
      de: 'mathematik|mathe|gleichung|lösen|algebra|ableitung|integral|wahrscheinlichkeit|beweis|beweisen|geometrie|dreieck|kreis|fläche|bruch|prozent|wurzel|polynom|berechnen|rechnen|würfel|würfeln|hausaufgaben',
    },
    names: 'sin|cos|tan|log|ln|dx|pi',
  },
  {
    name: 'writing',
    words: {
      en: 'write|writing|draft|essay|letter|cover letter|email|mail|text|texts|document|documents|report|proofread|edit|editing|rewrite|rephrase|reword|grammar|spelling|typo|typos|tone|paragraph|introduction|article|blog|post|copy|speech|wording|sentence|formal|polish|cv|resume|notes|memo|summary|word|words|essay|letter|newsletter|announcement|toast|message|reply',
      fr: 'écrire|rédiger|rédaction|texte|lettre|courriel|mail|rapport|relire|corriger|faute|fautes|orthographe|grammaire|paragraphe|article|discours|dissertation|motivation|reformuler|formuler|message|réponse|compte rendu',
      es: 'escribir|redactar|redacción|texto|carta|correo|informe|corregir|ortografía|gramática|párrafo|artículo|ensayo|discurso|reformular|mensaje|recomendación',
      de: 'schreiben|formulieren|text|brief|e-mail|mail|bericht|korrigieren|rechtschreibung|grammatik|absatz|artikel|aufsatz|anschreiben|protokoll|nachricht|bewerbung',
    },
  },
  {
    name: 'creative',
    words: {
      en: 'poem|poetry|story|stories|fiction|novel|lyrics|song|joke|jokes|slogan|haiku|limerick|character|plot|fairy tale|bedtime|rhyme|creative|screenplay|fantasy|tagline|funny|riddle',
      fr: 'poème|poésie|histoire|conte|chanson|blague|slogan|roman|créatif|rime',
      es: 'poema|poesía|cuento|historia|canción|chiste|eslogan|novela|creativo|rima',
      de: 'gedicht|geschichte|märchen|lied|witz|slogan|roman|kreativ|reim',
    },
  },
  {
    name: 'translation',
    words: {
      en: 'translate|translation|translator|localise|localize|localisation|localization|language|languages|english|french|spanish|german|italian|portuguese|japanese|chinese|korean|arabic|russian|dutch|say in',
      fr: 'traduire|traduction|traducteur|langue|anglais|espagnol|allemand|italien|portugais|japonais|chinois|dit-on|on dit',
      es: 'traducir|traducción|traductor|idioma|inglés|francés|alemán|italiano|portugués|japonés|chino|se dice',
      de: 'übersetzen|übersetzung|übersetzer|sprache|englisch|französisch|spanisch|italienisch|japanisch|chinesisch|heißt auf',
    },
  },
  {
    name: 'summarization',
    words: {
      en: 'summary|summarize|summarise|summarizing|recap|key points|condense|abstract|digest|overview|tldr|gist|main points|transcript|long document|white paper|minutes',
      fr: 'résumer|résumé|synthèse|points clés|synthétiser',
      es: 'resumir|resumen|síntesis|puntos clave',
      de: 'zusammenfassen|zusammenfassung|überblick|kernpunkte',
    },
  },
  {
    name: 'data',
    words: {
      en: 'data|dataset|spreadsheet|excel|sheet|sheets|csv|pivot|chart|plot|statistics|statistical|average|mean|median|correlation|regression|column|columns|row|rows|dashboard|analytics|metric|metrics|kpi|visualization|visualisation|distribution|forecast|trend|numbers|table|query|sql|database|aggregate|group by|signups|cohort|churn|p-value|histogram',
      fr: 'données|tableur|graphique|statistique|statistiques|moyenne|médiane|colonne|colonnes|tableau|chiffres|prévision|tendance',
      es: 'datos|hoja de cálculo|gráfico|estadística|estadísticas|promedio|media|mediana|columna|tabla|cifras|previsión|tendencia',
      de: 'daten|tabelle|tabellenkalkulation|diagramm|statistik|durchschnitt|median|spalte|spalten|zahlen|prognose|trend',
    },
    names: 'pandas|numpy|tableau|powerbi|looker|bigquery|sql|csv|xlsx|vlookup|xlookup',
  },
  {
    name: 'database',
    words: {
      en: 'sql|query|queries|database|databases|table|tables|index|indexes|schema|join|joins|select|row|rows|column|columns|primary key|foreign key|duplicate|duplicates|record|records|migration|transaction|orders table|users table|group by|having|count',
      fr: 'requête|requêtes|base de données|table|index|schéma|jointure|doublons|colonne|ligne|enregistrement',
      es: 'consulta|consultas|base de datos|tabla|índice|esquema|duplicados|columna|fila|registro',
      de: 'abfrage|abfragen|datenbank|tabelle|index|schema|duplikate|doppelte|einträge|spalte|zeile|datensatz',
    },
    names:
      'sql|postgres|postgresql|mysql|sqlite|mongodb|oracle|mariadb|select|join|customer_id|created_at|50m',
  },
  {
    name: 'regex',
    words: {
      en: 'regex|regular expression|pattern|match|matches|matching|capture group|wildcard|postcode|zip code|validate format',
      fr: 'expression régulière|motif',
      es: 'expresión regular|patrón',
      de: 'regulärer ausdruck|muster',
    },
    names: 'regex|regexp|grep',
  },
  {
    name: 'billing',
    words: {
      en: 'bill|billing|billed|invoice|invoices|charge|charged|charges|payment|payments|pay|paid|refund|refunds|money back|card|credit card|debit|declined|subscription|price|pricing|receipt|vat|checkout|transaction|fee|fees|overcharged|renewal|renew|cost|paypal|amount|twice',
      fr: 'facture|factures|facturation|facturé|paiement|payer|payé|remboursement|rembourser|carte|carte bancaire|prélèvement|prélevé|abonnement|prix|débité|montant|tva|reçu',
      es: 'factura|facturas|facturación|pago|pagar|pagado|reembolso|reembolsar|tarjeta|cobro|cobrar|cobrado|suscripción|precio|importe|recibo|iva',
      de: 'rechnung|rechnungen|zahlung|zahlen|bezahlen|bezahlt|erstattung|rückerstattung|karte|kreditkarte|abgebucht|abbuchung|betrag|abo|abonnement|preis|gebühr|quittung|mehrwertsteuer',
    },
    names: 'paypal|visa|mastercard|amex|stripe|sepa|iban',
  },
  {
    name: 'account',
    words: {
      en: 'account|login|log in|sign in|password|username|email address|profile|settings|delete account|two-factor|sign up|register|privacy settings|reset password|locked out|verification',
      fr: 'compte|mot de passe|connexion|identifiant|profil|paramètres|inscription|se connecter',
      es: 'cuenta|contraseña|iniciar sesión|usuario|perfil|ajustes|configuración|registro',
      de: 'konto|passwort|anmeldung|anmelden|benutzername|profil|einstellungen|registrierung',
    },
    names: '2fa|sso|otp',
  },
  {
    name: 'tech-support',
    words: {
      en: 'technical|problem|problems|issue|issues|error|errors|crash|crashes|crashing|bug|bugs|broken|not working|doesn work|fails|failing|freeze|freezes|blank screen|app|application|install|installation|update|configuration|setup|load|loading|slow|connection|sync|troubleshoot|device|screen|camera|login problem',
      fr: 'technique|problème|problèmes|erreur|plante|plantage|bug|bogue|marche pas|fonctionne pas|application|appli|installer|installation|mise à jour|charge|écran|lent',
      es: 'técnico|problema|problemas|error|falla|fallo|no funciona|aplicación|instalar|instalación|actualización|carga|pantalla|lento',
      de: 'technisch|problem|probleme|fehler|absturz|stürzt|abgestürzt|funktioniert nicht|app|anwendung|installieren|installation|update|lädt|bildschirm|langsam',
    },
  },
  {
    name: 'orders',
    words: {
      en: 'order|orders|delivery|deliver|delivered|shipping|ship|shipped|shipment|package|parcel|tracking|track|arrive|arrived|courier|send back|lost|damaged|dispatch|dispatched|eta',
      fr: 'commande|commandes|livraison|livrer|livré|colis|suivi|arrivée|arrivé|retour|expédition|expédié|perdu|endommagé',
      es: 'pedido|pedidos|envío|entrega|enviar|paquete|seguimiento|llegar|llega|llegado|devolución|perdido|dañado',
      de: 'bestellung|bestellungen|lieferung|liefern|geliefert|paket|sendung|versand|versendet|angekommen|rücksendung|verloren|beschädigt',
    },
    names: 'dhl|ups|fedex|usps',
  },
  {
    name: 'product',
    words: {
      en: 'product|products|size|sizes|material|colour|color|stock|available|availability|waterproof|fit|fits|made of|warranty|dimensions|features|compatible|hoodie|jacket|backpack|shoe|shoes|shirt|sweater|wool|cotton|run small|run large',
      fr: 'produit|produits|taille|matière|laine|coton|couleur|stock|disponible|garantie|pull|veste|chaussure',
      es: 'producto|productos|talla|material|color|disponible|garantía|chaqueta|camiseta|zapatos|lana',
      de: 'produkt|produkte|größe|material|farbe|verfügbar|lieferbar|garantie|jacke|pullover|schuhe|wolle',
    },
  },
  {
    name: 'legal',
    words: {
      en: 'legal|law|laws|contract|contracts|clause|compliance|privacy policy|terms of service|terms|lawsuit|liability|lawyer|attorney|copyright|trademark|license|licence|nda|consent|regulation|regulations|cookies|gdpr|court|sue|rights',
      fr: 'juridique|loi|lois|contrat|clause|conformité|avocat|droit|droits|mentions légales|tribunal|licence|rgpd|consentement',
      es: 'legal|ley|leyes|contrato|cláusula|cumplimiento|abogado|derecho|derechos|tribunal|licencia|consentimiento',
      de: 'rechtlich|gesetz|gesetze|vertrag|klausel|anwalt|recht|rechte|datenschutz|gericht|lizenz|einwilligung|dsgvo|miete|pacht',
    },
    names: 'gdpr|rgpd|dsgvo|ccpa|hipaa|nda',
  },
  {
    name: 'devops',
    words: {
      en: 'deploy|deployment|pipeline|container|containers|infrastructure|server|servers|monitoring|alert|alerts|logs|cloud|uptime|cluster|pod|pods|load balancer|helm|staging|production|ci|cd|build|rollout|scaling|autoscaling|metrics|observability',
      fr: 'déployer|déploiement|serveur|conteneur|infrastructure|surveillance|alerte|journaux',
      es: 'desplegar|despliegue|servidor|contenedor|infraestructura|monitorización|alerta',
      de: 'deployen|bereitstellung|server|container|infrastruktur|überwachung|alarm',
    },
    names:
      'docker|kubernetes|k8s|terraform|ansible|helm|prometheus|grafana|datadog|nginx|aws|gcp|azure|jenkins|argocd|ec2|s3|crashloopbackoff',
  },
  {
    name: 'frontend',
    words: {
      en: 'css|html|ui|ux|layout|style|styling|page|web page|webpage|button|navbar|sidebar|footer|header|font|responsive|dark mode|component|div|center|flexbox|grid|animation|browser|scroll|website|form|modal|dropdown',
      fr: 'police|mise en page|bouton|page|site|navigateur|style|menu',
      es: 'página|botón|estilo|diseño|navegador|sitio web|fuente',
      de: 'seite|webseite|schaltfläche|schrift|schriftart|layout|browser|stil',
    },
    names: 'css|html|react|vue|angular|svelte|tailwind|bootstrap|flexbox|jsx|dom|navbar|div|scss|sass',
  },
  {
    name: 'backend',
    words: {
      en: 'api|endpoint|endpoints|server|backend|rest|pagination|authentication|microservice|microservices|queue|queues|cache|caching|webhook|request|requests|rate limit|database|message broker',
      fr: 'serveur|point de terminaison|authentification|file|cache',
      es: 'servidor|autenticación|cola|caché',
      de: 'server|authentifizierung|warteschlange|cache|schnittstelle',
    },
    names:
      'api|rest|graphql|grpc|kafka|rabbitmq|redis|postgres|django|flask|fastapi|express|spring|nodejs|node',
  },
  {
    name: 'machine-learning',
    words: {
      en: 'machine learning|model|models|training|train|neural network|classifier|accuracy|overfitting|embedding|embeddings|fine-tune|inference|feature|features|dataset|prediction|deep learning|transformer',
      fr: 'apprentissage automatique|modèle|entraînement|entraîner|réseau de neurones',
      es: 'aprendizaje automático|modelo|entrenamiento|entrenar|red neuronal',
      de: 'maschinelles lernen|modell|training|trainieren|neuronales netz',
    },
    names: 'pytorch|tensorflow|keras|sklearn|llm|gpt|bert|xgboost|ml|ai',
  },
  {
    name: 'health',
    words: {
      en: 'health|healthy|fitness|exercise|exercises|workout|jogging|marathon|squat|squats|gym|stretch|stretches|stretching|pain|back pain|sleep|asleep|insomnia|diet|calories|weight|muscle|muscles|doctor|symptom|symptoms|medicine|headache|abs|strength|cardio|yoga|injury',
      fr: 'santé|sport|exercice|exercices|entraînement|courir|course|marathon|semi-marathon|douleur|dormir|sommeil|régime|calories|poids|muscle|muscles|médecin|abdos|abdominaux',
      es: 'salud|ejercicio|ejercicios|entrenamiento|correr|maratón|dolor|dormir|sueño|dieta|calorías|peso|músculo|médico',
      de: 'gesundheit|sport|übung|übungen|training|laufen|marathon|schmerzen|schlafen|schlaf|diät|kalorien|gewicht|muskel|muskeln|arzt',
    },
  },
  {
    name: 'cooking',
    words: {
      en: 'cook|cooking|recipe|recipes|bake|baking|cake|bread|dinner|lunch|meal|ingredient|ingredients|oven|pancakes|eggs|egg|risotto|pasta|soup|sauce|kitchen|fry|boil|roast|dessert|vegetarian|vegan|food|dish',
      fr: 'cuisine|cuisiner|recette|recettes|cuire|gâteau|pain|repas|dîner|ingrédient|four|crêpes|œufs|mayonnaise|sauce|plat',
      es: 'cocina|cocinar|receta|recetas|hornear|pastel|pan|comida|cena|ingrediente|horno|paella|huevos|tortilla|plato',
      de: 'kochen|rezept|rezepte|backen|kuchen|brot|essen|abendessen|zutat|zutaten|ofen|ei|eier|gulasch|sauerteig|gericht',
    },
  },
  {
    name: 'travel',
    words: {
      en: 'travel|traveling|travelling|trip|trips|holiday|holidays|vacation|flight|flights|hotel|hotels|visit|visiting|itinerary|things to do|sightseeing|passport|visa|airport|tour|destination|abroad|backpacking|journey|weekend away',
      fr: 'voyage|voyages|voyager|vacances|vol|vols|hôtel|visiter|itinéraire|passeport|visa|aéroport|séjour',
      es: 'viaje|viajes|viajar|vacaciones|vuelo|vuelos|hotel|visitar|itinerario|pasaporte|visado|aeropuerto',
      de: 'reise|reisen|urlaub|flug|flüge|hotel|besuchen|reiseroute|reisepass|visum|flughafen',
    },
  },
  {
    name: 'finance',
    words: {
      en: 'money|budget|budgets|budgeting|invest|investing|investment|investments|savings|save|saving|stock|stocks|etf|fund|funds|portfolio|crypto|bitcoin|loan|loans|mortgage|debt|interest|retirement|tax|taxes|salary|income|expense|expenses|bank|finance|financial',
      fr: 'argent|budget|investir|investissement|épargne|épargner|économiser|bourse|actions|prêt|crédit|dette|intérêts|retraite|impôts|salaire|revenu|dépenses|banque|finances',
      es: 'dinero|presupuesto|invertir|inversión|ahorrar|ahorro|bolsa|acciones|préstamo|hipoteca|deuda|intereses|jubilación|impuestos|sueldo|salario|ingresos|gastos|banco|finanzas',
      de: 'geld|budget|investieren|investition|sparen|ersparnisse|aktien|kredit|hypothek|schulden|zinsen|rente|steuern|gehalt|einkommen|ausgaben|bank|finanzen',
    },
    names: 'etf|ira|401k|roth|crypto|bitcoin|s&p',
  },
  {
    name: 'marketing',
    words: {
      en: 'marketing|campaign|campaigns|ads|advertising|advert|seo|social media|brand|branding|slogan|newsletter|audience|launch|conversion|landing page|linkedin post|promotion|copywriting|tagline',
      fr: 'marketing|campagne|publicité|marque|réseaux sociaux|lancement',
      es: 'marketing|campaña|publicidad|marca|redes sociales|lanzamiento',
      de: 'marketing|kampagne|werbung|marke|soziale medien|produkteinführung',
    },
  },
  {
    name: 'career',
    words: {
      en: 'job|jobs|career|cv|resume|interview|interviews|cover letter|hiring|recruit|recruiter|employee|promotion|salary negotiation|gap year|internship|linkedin|manager|colleague',
      fr: 'emploi|travail|carrière|cv|entretien|lettre de motivation|stage|embauche|collègue',
      es: 'empleo|trabajo|carrera|cv|entrevista|carta de presentación|prácticas|contratación|compañero',
      de: 'job|arbeit|karriere|lebenslauf|vorstellungsgespräch|bewerbung|praktikum|werkstudent|kollege',
    },
  },
  {
    name: 'science',
    words: {
      en: 'science|physics|chemistry|biology|photosynthesis|atom|molecule|cell|virus|bacteria|gravity|experiment|evolution|dna|planet|energy',
      fr: 'science|physique|chimie|biologie|photosynthèse|atome|molécule|cellule|bactérie|gravité|planète',
      es: 'ciencia|física|química|biología|fotosíntesis|átomo|molécula|célula|bacteria|gravedad|planeta',
      de: 'wissenschaft|physik|chemie|biologie|photosynthese|atom|molekül|zelle|bakterie|schwerkraft|planet',
    },
  },
  {
    name: 'sports',
    words: {
      en: 'football|soccer|basketball|tennis|world cup|league|match|team|player|score|olympics|championship',
      fr: 'football|foot|basket|tennis|coupe du monde|équipe|joueur|championnat',
      es: 'fútbol|baloncesto|tenis|mundial|equipo|jugador|liga|campeonato',
      de: 'fußball|basketball|tennis|weltmeisterschaft|mannschaft|spieler|liga|meisterschaft',
    },
  },
  {
    name: 'home',
    words: {
      en: 'plant|plants|garden|gardening|leaves|pet|pets|dog|cat|puppy|house|home|furniture|cleaning|laundry|repair|car|noise|brake|brakes',
      fr: 'plante|jardin|animal|chien|chat|maison|meuble|ménage|voiture',
      es: 'planta|jardín|mascota|perro|gato|casa|mueble|limpieza|coche',
      de: 'pflanze|garten|haustier|hund|katze|haus|möbel|putzen|auto',
    },
  },
];
