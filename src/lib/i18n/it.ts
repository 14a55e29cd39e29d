// I testi letti da un visitatore, in italiano: le stesse chiavi di en.ts.
import type { Messages } from "./en.ts";
import { plural } from "./plural.ts";

const n = (count: number, one: string, other: string) => plural("it", count, { one, other });

export const it: Messages = {
  language: "Italiano",

  required: (v) => `${v.label}: compila questo campo.`,
  checkRequired: (v) => `${v.label}: seleziona questa casella per continuare.`,
  chooseFile: (v) => `${v.label}: scegli un file.`,
  chooseOption: (v) => `${v.label}: scegli una delle opzioni proposte.`,
  enterNumber: (v) => `${v.label}: inserisci un numero.`,
  tooSmall: (v) => `${v.label}: inserisci ${v.min} o più.`,
  tooLarge: (v) => `${v.label}: inserisci ${v.max} o meno.`,
  oneValue: (v) => `${v.label}: inserisci un solo valore come testo.`,
  invalidEmail: (v) => `${v.label}: inserisci un indirizzo email come anna@example.com.`,
  invalidUrl: (v) => `${v.label}: inserisci un indirizzo come https://example.com.`,
  invalidDate: (v) => `${v.label}: inserisci una data come 2026-11-22.`,
  tooShort: (v) => `${v.label}: inserisci almeno ${n(v.min, "# carattere", "# caratteri")}.`,
  tooLong: (v) => `${v.label}: inserisci al massimo ${n(v.max, "# carattere", "# caratteri")}.`,
  patternMismatch: (v) => `${v.label}: inseriscilo nel formato richiesto.`,
  unknownField: (v) => `${v.name}: questo modulo non ha questo campo.`,
  fieldsNeedFixing: (v) => n(v.count, "Un campo va corretto.", "# campi vanno corretti."),

  formNotFound: () => "Questo modulo non esiste.",
  formInactive: () => "Questo modulo non accetta invii in questo momento.",
  originNotAllowed: () => "Questo modulo non accetta invii da questo sito.",
  rateLimited: (v) => `Troppi invii dal tuo indirizzo; riprova tra ${n(v.seconds, "# secondo", "# secondi")}.`,
  captchaFailed: () => "Il captcha non è stato risolto o la sua soluzione è scaduta. Lascia che il captcha finisca e invia di nuovo il modulo.",
  emptySubmission: () => "L’invio non contiene campi.",
  invalidRedirect: () => "La pagina del modulo rimanda a un indirizzo che non può usare.",
  payloadTooLarge: () => "L’invio è troppo grande.",
  filesNotAccepted: () => "Questo modulo non accetta file.",
  notSent: () => "Non è stato possibile leggere l’invio. Riprova.",
  serverError: () => "Qualcosa è andato storto da parte nostra. Riprova tra un momento.",

  thanksTitle: () => "Grazie",
  thanksHeading: () => "Grazie!",
  thanksText: () => "Abbiamo ricevuto il tuo invio.",
  thanksMessage: () => "Grazie! Abbiamo ricevuto il tuo invio.",
  errorTitle: () => "Invio non riuscito",
  errorHeading: () => "Il tuo invio non è stato inviato",
  errorStatus: (v) => `Errore ${v.status}`,
  goBack: () => "Torna indietro",

  send: () => "Invia",
  sending: () => "Invio in corso…",
  requiredMark: () => "obbligatorio",
  chooseOne: () => "Scegli…",
  honeypot: () => "Lascia vuoto questo campo",
  networkError: () => "Non è stato possibile inviare il modulo. Controlla la connessione e riprova.",
  errorSummary: (v) => n(v.count, "Un campo va corretto:", "# campi vanno corretti:"),
  pageDisabled: () => "Questo modulo non ha una pagina.",
  captchaLabel: () => "Non sono un robot",
  captchaVerifying: () => "Verifica in corso…",
  captchaVerified: () => "Verificato",
  captchaError: () => "Verifica non riuscita. Riprova più tardi.",
  captchaExpired: () => "La verifica è scaduta. Riprova.",
  captchaWait: () => "Verifica in corso… attendi.",

  confirmByLink: () => "Conferma il tuo indirizzo aprendo questo link:",

  confirmedTitle: () => "Confermato",
  confirmedText: () => "Grazie: il tuo indirizzo è confermato. Puoi chiudere questa pagina.",
  alreadyConfirmedTitle: () => "Già confermato",
  alreadyConfirmedText: () => "Questo indirizzo era già confermato. Non c’è altro da fare.",
  linkExpiredTitle: () => "Link scaduto",
  linkExpiredText: () => "Questo link di conferma è scaduto, quindi non è stato confermato nulla. Se vuoi ancora, invia di nuovo il modulo.",
  linkInvalidTitle: () => "Link non valido",
  linkInvalidText: () => "Questo link di conferma non è valido, quindi non è stato confermato nulla. Controlla di aver copiato l’intero link dall’email.",
};
