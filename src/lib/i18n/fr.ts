// Les textes lus par un visiteur, en français : les mêmes clés que en.ts.
import type { Messages } from "./en.ts";
import { plural } from "./plural.ts";

const n = (count: number, one: string, other: string) => plural("fr", count, { one, other });

export const fr: Messages = {
  language: "Français",

  required: (v) => `${v.label} : veuillez remplir ce champ.`,
  checkRequired: (v) => `${v.label} : cochez cette case pour continuer.`,
  chooseFile: (v) => `${v.label} : choisissez un fichier.`,
  chooseOption: (v) => `${v.label} : choisissez l’une des options proposées.`,
  enterNumber: (v) => `${v.label} : saisissez un nombre.`,
  tooSmall: (v) => `${v.label} : saisissez ${v.min} ou plus.`,
  tooLarge: (v) => `${v.label} : saisissez ${v.max} ou moins.`,
  oneValue: (v) => `${v.label} : saisissez une seule valeur, en texte.`,
  invalidEmail: (v) => `${v.label} : saisissez une adresse e-mail comme anne@example.com.`,
  invalidUrl: (v) => `${v.label} : saisissez une adresse comme https://example.com.`,
  invalidDate: (v) => `${v.label} : saisissez une date au format 2026-11-22.`,
  tooShort: (v) => `${v.label} : saisissez au moins ${n(v.min, "# caractère", "# caractères")}.`,
  tooLong: (v) => `${v.label} : saisissez au plus ${n(v.max, "# caractère", "# caractères")}.`,
  patternMismatch: (v) => `${v.label} : respectez le format demandé.`,
  unknownField: (v) => `${v.name} : ce formulaire n’a pas ce champ.`,
  fieldsNeedFixing: (v) => n(v.count, "Un champ est à corriger.", "# champs sont à corriger."),

  formNotFound: () => "Ce formulaire n’existe pas.",
  formInactive: () => "Ce formulaire n’accepte pas d’envois pour le moment.",
  originNotAllowed: () => "Ce formulaire n’accepte pas d’envois depuis ce site.",
  rateLimited: (v) => `Trop d’envois depuis votre adresse ; réessayez dans ${n(v.seconds, "# seconde", "# secondes")}.`,
  captchaFailed: () => "Le captcha n’a pas été résolu, ou sa solution a expiré. Laissez le captcha terminer et renvoyez le formulaire.",
  emptySubmission: () => "L’envoi ne contient aucun champ.",
  invalidRedirect: () => "La page du formulaire renvoie vers une adresse qu’elle ne peut pas utiliser.",
  payloadTooLarge: () => "L’envoi est trop volumineux.",
  filesNotAccepted: () => "Ce formulaire n’accepte pas de fichiers.",
  notSent: () => "L’envoi n’a pas pu être lu. Réessayez.",
  serverError: () => "Un problème est survenu de notre côté. Réessayez dans un instant.",

  thanksTitle: () => "Merci",
  thanksHeading: () => "Merci !",
  thanksText: () => "Votre envoi a bien été reçu.",
  thanksMessage: () => "Merci ! Votre envoi a bien été reçu.",
  errorTitle: () => "Envoi non effectué",
  errorHeading: () => "Votre envoi n’a pas été effectué",
  errorStatus: (v) => `Erreur ${v.status}`,
  goBack: () => "Retour",

  send: () => "Envoyer",
  sending: () => "Envoi…",
  requiredMark: () => "obligatoire",
  chooseOne: () => "Choisir…",
  honeypot: () => "Laissez ce champ vide",
  networkError: () => "Le formulaire n’a pas pu être envoyé. Vérifiez votre connexion et réessayez.",
  errorSummary: (v) => n(v.count, "Un champ est à corriger :", "# champs sont à corriger :"),
  pageDisabled: () => "Ce formulaire n’a pas de page.",
  captchaLabel: () => "Je ne suis pas un robot",
  captchaVerifying: () => "Vérification…",
  captchaVerified: () => "Vérifié",
  captchaError: () => "La vérification a échoué. Réessayez plus tard.",
  captchaExpired: () => "La vérification a expiré. Réessayez.",
  captchaWait: () => "Vérification… veuillez patienter.",

  confirmByLink: () => "Confirmez votre adresse en ouvrant ce lien :",

  confirmedTitle: () => "Confirmé",
  confirmedText: () => "Merci : votre adresse est confirmée. Vous pouvez fermer cette page.",
  alreadyConfirmedTitle: () => "Déjà confirmé",
  alreadyConfirmedText: () => "Cette adresse a déjà été confirmée. Il n’y a rien d’autre à faire.",
  linkExpiredTitle: () => "Lien expiré",
  linkExpiredText: () => "Ce lien de confirmation a expiré : rien n’a été confirmé. Si vous le souhaitez toujours, envoyez à nouveau le formulaire.",
  linkInvalidTitle: () => "Lien non valide",
  linkInvalidText: () => "Ce lien de confirmation n’est pas valide : rien n’a été confirmé. Vérifiez que le lien a été copié en entier depuis l’e-mail.",
};
