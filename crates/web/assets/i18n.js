// Interface text in English and Polish. The browser's language picks one at first; the switch
// in the header changes it and is remembered on this device.

const TEXT = {
  en: {
    appName: "callscope", signInTitle: "Sign in", apiKey: "API key", signIn: "Sign in", signOut: "Sign out",
    keyHelp: "Paste the API key your administrator gave you. It is kept only in this browser tab.",
    badKey: "This key was not accepted.", projects: "Projects", newProject: "New project", name: "Name", create: "Create",
    noProjects: "No projects yet: create the first one.", calls: "Calls", actionItems: "Action items", language: "Language",
    switchLanguage: "Polski", search: "Search", searchHelp: "Words find calls with all of them; \"a phrase\" in quotes; -word leaves calls with it out; OR between words finds either.",
    from: "From", to: "To", apply: "Apply", clear: "Clear", title: "Title", date: "Date", duration: "Duration", sentiment: "Sentiment",
    category: "Category", items: "Items", noCalls: "No calls here yet.", page: "Page", of: "of", previous: "Previous", next: "Next",
    upload: "Upload calls", dropHere: "Drop audio files here, or choose them", chooseFiles: "Choose files", channelRoles: "Channel roles",
    channelRolesHelp: "e.g. agent,customer for a stereo recording", recordedAt: "Recorded on", uploading: "Uploading", queued: "Queued",
    completed: "Completed", failed: "Failed", open: "Open", back: "Back to calls", play: "Play", speakers: "Speakers",
    summary: "Summary", keyPoints: "Key points", resolution: "Resolution", nextSteps: "Next steps", templateAnswers: "Template answers",
    noAnswer: "not answered", recategorise: "Change category", save: "Save", reanalyse: "Re-analyse", delete: "Delete",
    confirmDelete: "Delete this call, its transcript, audio and action items? This cannot be undone.", downloadAudio: "Download audio",
    downloadTranscript: "Download transcript", status: "Status", priority: "Priority", owner: "Owner", deadline: "Deadline", notes: "Notes",
    description: "Description", pending: "Pending", inProgress: "In progress", done: "Done", cancelled: "Cancelled", overdue: "Overdue",
    all: "All", noItems: "No action items.", call: "Call", saved: "Saved", reanalysing: "Re-analysis queued", personalData: "Personal data",
    uncategorized: "Uncategorized", positive: "positive", neutral: "neutral", negative: "negative", unknown: "unknown", talk: "of the talk",
    words: "words", turns: "turns", transcript: "Transcript", loading: "Loading…", error: "Something went wrong", moment: "Play this moment",
    dashboard: "Dashboard", hasOverdue: "with overdue items", created: "Created", callDate: "Call date", sortBy: "Sort by", descending: "newest/highest first", direction: "Direction", ascending: "oldest/lowest first",
    settings: "Settings", parent: "Parent", topLevel: "(top level)", noCategories: "No categories yet: calls stay uncategorized.", rename: "Rename", move: "Move",
    confirmCategoryDelete: "Delete \"{name}\" and the {below} categories below it? Its {calls} calls become uncategorized.", add: "Add", categories: "Categories",
    templates: "Analysis templates", label: "Label", question: "Question", answerType: "Answer type", options: "Options", optionsHelp: "options, comma-separated",
    noTemplates: "No templates yet.", active: "active", deactivate: "Deactivate", activate: "Activate", addField: "Add a field", presets: "Speaker presets",
    noPresets: "No presets yet.", default: "default", makeDefault: "Make default", webhooks: "Webhooks", deliveries: "Deliveries", noDeliveries: "No deliveries yet.",
    event: "Event", attempts: "Attempts", answer: "Answer", redeliver: "Send again", secretOnce: "The signing secret, shown only now: keep it where your receiver can read it.",
    copied: "Copied", copy: "Copy", noWebhooks: "No webhooks yet.", paused: "paused", pause: "Pause", resume: "Resume", test: "Send a test", events: "Events", timeZone: "Time zone", confidence: "mean confidence", callsPerCategory: "Calls per category", trend: "Sentiment by day",
  },
  pl: {
    appName: "callscope", signInTitle: "Logowanie", apiKey: "Klucz API", signIn: "Zaloguj", signOut: "Wyloguj",
    keyHelp: "Wklej klucz API od administratora. Jest przechowywany tylko w tej karcie przeglądarki.",
    badKey: "Ten klucz nie został przyjęty.", projects: "Projekty", newProject: "Nowy projekt", name: "Nazwa", create: "Utwórz",
    noProjects: "Nie ma jeszcze projektów: utwórz pierwszy.", calls: "Rozmowy", actionItems: "Zadania", language: "Język",
    switchLanguage: "English", search: "Szukaj", searchHelp: "Słowa znajdują rozmowy ze wszystkimi; \"fraza\" w cudzysłowie; -słowo wyklucza rozmowy z nim; OR między słowami znajduje którekolwiek.",
    from: "Od", to: "Do", apply: "Zastosuj", clear: "Wyczyść", title: "Tytuł", date: "Data", duration: "Czas", sentiment: "Nastrój",
    category: "Kategoria", items: "Zadania", noCalls: "Nie ma tu jeszcze rozmów.", page: "Strona", of: "z", previous: "Poprzednia", next: "Następna",
    upload: "Wgraj rozmowy", dropHere: "Upuść tu pliki audio albo je wybierz", chooseFiles: "Wybierz pliki", channelRoles: "Role kanałów",
    channelRolesHelp: "np. agent,customer dla nagrania stereo", recordedAt: "Data nagrania", uploading: "Wysyłanie", queued: "W kolejce",
    completed: "Gotowe", failed: "Błąd", open: "Otwórz", back: "Wróć do rozmów", play: "Odtwórz", speakers: "Rozmówcy",
    summary: "Podsumowanie", keyPoints: "Najważniejsze punkty", resolution: "Rozwiązanie", nextSteps: "Dalsze kroki", templateAnswers: "Odpowiedzi szablonu",
    noAnswer: "brak odpowiedzi", recategorise: "Zmień kategorię", save: "Zapisz", reanalyse: "Analizuj ponownie", delete: "Usuń",
    confirmDelete: "Usunąć tę rozmowę, jej transkrypcję, nagranie i zadania? Tego nie można cofnąć.", downloadAudio: "Pobierz nagranie",
    downloadTranscript: "Pobierz transkrypcję", status: "Status", priority: "Priorytet", owner: "Odpowiedzialny", deadline: "Termin", notes: "Notatki",
    description: "Opis", pending: "Oczekujące", inProgress: "W toku", done: "Zrobione", cancelled: "Anulowane", overdue: "Po terminie",
    all: "Wszystkie", noItems: "Brak zadań.", call: "Rozmowa", saved: "Zapisano", reanalysing: "Ponowna analiza w kolejce", personalData: "Dane osobowe",
    uncategorized: "Bez kategorii", positive: "pozytywny", neutral: "neutralny", negative: "negatywny", unknown: "nieznany", talk: "rozmowy",
    words: "słów", turns: "wypowiedzi", transcript: "Transkrypcja", loading: "Wczytywanie…", error: "Coś poszło nie tak", moment: "Odtwórz ten moment",
    dashboard: "Pulpit", hasOverdue: "z zaległymi zadaniami", created: "Utworzenie", callDate: "Data rozmowy", sortBy: "Sortuj wg", descending: "malejąco", direction: "Kierunek", ascending: "rosnąco",
    settings: "Ustawienia", parent: "Nadrzędna", topLevel: "(najwyższy poziom)", noCategories: "Nie ma jeszcze kategorii: rozmowy zostają bez kategorii.", rename: "Zmień nazwę", move: "Przenieś",
    confirmCategoryDelete: "Usunąć \"{name}\" i {below} kategorii pod nią? Jej rozmowy ({calls}) zostaną bez kategorii.", add: "Dodaj", categories: "Kategorie",
    templates: "Szablony analizy", label: "Etykieta", question: "Pytanie", answerType: "Typ odpowiedzi", options: "Opcje", optionsHelp: "opcje, po przecinku",
    noTemplates: "Nie ma jeszcze szablonów.", active: "aktywny", deactivate: "Wyłącz", activate: "Włącz", addField: "Dodaj pole", presets: "Zestawy rozmówców",
    noPresets: "Nie ma jeszcze zestawów.", default: "domyślny", makeDefault: "Ustaw jako domyślny", webhooks: "Webhooki", deliveries: "Dostarczenia", noDeliveries: "Nie ma jeszcze dostarczeń.",
    event: "Zdarzenie", attempts: "Próby", answer: "Odpowiedź", redeliver: "Wyślij ponownie", secretOnce: "Sekret podpisu, pokazywany tylko teraz: zapisz go tam, gdzie odbiorca go odczyta.",
    copied: "Skopiowano", copy: "Kopiuj", noWebhooks: "Nie ma jeszcze webhooków.", paused: "wstrzymany", pause: "Wstrzymaj", resume: "Wznów", test: "Wyślij test", events: "Zdarzenia", timeZone: "Strefa czasowa", confidence: "średnia pewność", callsPerCategory: "Rozmowy według kategorii", trend: "Nastrój dzień po dniu",
  },
};

const CHOICE = "callscope.language";

export let lang = localStorage.getItem(CHOICE) || ((navigator.language || "en").toLowerCase().startsWith("pl") ? "pl" : "en");

/** The text for `key` in the current language. */
export function t(key) {
  return TEXT[lang][key] ?? TEXT.en[key] ?? key;
}

/** Switches between English and Polish and remembers the choice. */
export function toggleLanguage() {
  lang = lang === "pl" ? "en" : "pl";
  localStorage.setItem(CHOICE, lang);
  document.documentElement.lang = lang;
}

/** Dates and times in the current language. */
export function when(iso) {
  return iso ? new Date(iso).toLocaleString(lang === "pl" ? "pl-PL" : "en-GB", { dateStyle: "medium", timeStyle: "short" }) : "";
}
