// De teksten die een bezoeker leest, in het Nederlands: dezelfde sleutels als en.ts.
import type { Messages } from "./en.ts";
import { plural } from "./plural.ts";

const n = (count: number, one: string, other: string) => plural("nl", count, { one, other });

export const nl: Messages = {
  language: "Nederlands",

  required: (v) => `${v.label}: vul dit in.`,
  checkRequired: (v) => `${v.label}: vink dit vakje aan om verder te gaan.`,
  chooseFile: (v) => `${v.label}: kies een bestand.`,
  chooseOption: (v) => `${v.label}: kies een van de gegeven opties.`,
  enterNumber: (v) => `${v.label}: vul een getal in.`,
  tooSmall: (v) => `${v.label}: vul ${v.min} of meer in.`,
  tooLarge: (v) => `${v.label}: vul ${v.max} of minder in.`,
  oneValue: (v) => `${v.label}: vul één waarde in als tekst.`,
  invalidEmail: (v) => `${v.label}: vul een e-mailadres in zoals anna@example.com.`,
  invalidUrl: (v) => `${v.label}: vul een adres in zoals https://example.com.`,
  invalidDate: (v) => `${v.label}: vul een datum in als 2026-11-22.`,
  tooShort: (v) => `${v.label}: vul minstens ${n(v.min, "# teken", "# tekens")} in.`,
  tooLong: (v) => `${v.label}: vul hoogstens ${n(v.max, "# teken", "# tekens")} in.`,
  patternMismatch: (v) => `${v.label}: vul het in de gevraagde vorm in.`,
  unknownField: (v) => `${v.name}: dit formulier heeft zo'n veld niet.`,
  fieldsNeedFixing: (v) => n(v.count, "Eén veld moet worden verbeterd.", "# velden moeten worden verbeterd."),

  formNotFound: () => "Dit formulier bestaat niet.",
  formInactive: () => "Dit formulier neemt op dit moment geen inzendingen aan.",
  originNotAllowed: () => "Dit formulier neemt geen inzendingen van deze website aan.",
  rateLimited: (v) => `Te veel inzendingen vanaf uw adres; probeer het over ${n(v.seconds, "# seconde", "# seconden")} opnieuw.`,
  captchaFailed: () => "De captcha is niet opgelost of de oplossing is verlopen. Laat de captcha afronden en verstuur het formulier opnieuw.",
  emptySubmission: () => "De inzending bevat geen velden.",
  invalidRedirect: () => "De pagina van het formulier stuurt door naar een adres dat niet gebruikt mag worden.",
  payloadTooLarge: () => "De inzending is te groot.",
  filesNotAccepted: () => "Dit formulier neemt geen bestanden aan.",
  notSent: () => "De inzending kon niet worden gelezen. Probeer het opnieuw.",
  serverError: () => "Er ging bij ons iets mis. Probeer het zo opnieuw.",

  thanksTitle: () => "Bedankt",
  thanksHeading: () => "Bedankt!",
  thanksText: () => "Uw inzending is ontvangen.",
  thanksMessage: () => "Bedankt! Uw inzending is ontvangen.",
  errorTitle: () => "Inzending niet verzonden",
  errorHeading: () => "Uw inzending is niet verzonden",
  errorStatus: (v) => `Fout ${v.status}`,
  goBack: () => "Terug",

  send: () => "Versturen",
  sending: () => "Bezig met versturen…",
  requiredMark: () => "verplicht",
  chooseOne: () => "Kies…",
  honeypot: () => "Laat dit veld leeg",
  networkError: () => "Het formulier kon niet worden verstuurd. Controleer uw verbinding en probeer het opnieuw.",
  errorSummary: (v) => n(v.count, "Eén veld moet worden verbeterd:", "# velden moeten worden verbeterd:"),
  pageDisabled: () => "Dit formulier heeft geen pagina.",
  captchaLabel: () => "Ik ben geen robot",
  captchaVerifying: () => "Bezig met controleren…",
  captchaVerified: () => "Gecontroleerd",
  captchaError: () => "Controle mislukt. Probeer het later opnieuw.",
  captchaExpired: () => "Controle verlopen. Probeer het opnieuw.",
  captchaWait: () => "Bezig met controleren… even geduld.",

  confirmByLink: () => "Bevestig uw adres door deze link te openen:",

  confirmedTitle: () => "Bevestigd",
  confirmedText: () => "Bedankt: uw adres is bevestigd. U kunt deze pagina sluiten.",
  alreadyConfirmedTitle: () => "Al bevestigd",
  alreadyConfirmedText: () => "Dit adres was al bevestigd. U hoeft niets meer te doen.",
  linkExpiredTitle: () => "Link verlopen",
  linkExpiredText: () => "Deze bevestigingslink is verlopen, dus er is niets bevestigd. Wilt u dat nog steeds, verstuur het formulier dan opnieuw.",
  linkInvalidTitle: () => "Link ongeldig",
  linkInvalidText: () => "Deze bevestigingslink is ongeldig, dus er is niets bevestigd. Controleer of de hele link uit de e-mail is gekopieerd.",
};
