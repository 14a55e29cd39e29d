// Os textos que um visitante lê, em português: as mesmas chaves de en.ts.
import type { Messages } from "./en.ts";
import { plural } from "./plural.ts";

const n = (count: number, one: string, other: string) => plural("pt", count, { one, other });

export const pt: Messages = {
  language: "Português",

  required: (v) => `${v.label}: preencha este campo.`,
  checkRequired: (v) => `${v.label}: marque esta caixa para continuar.`,
  chooseFile: (v) => `${v.label}: escolha um arquivo.`,
  chooseOption: (v) => `${v.label}: escolha uma das opções.`,
  enterNumber: (v) => `${v.label}: digite um número.`,
  tooSmall: (v) => `${v.label}: digite ${v.min} ou mais.`,
  tooLarge: (v) => `${v.label}: digite ${v.max} ou menos.`,
  oneValue: (v) => `${v.label}: digite um único valor como texto.`,
  invalidEmail: (v) => `${v.label}: digite um endereço de e-mail como ana@example.com.`,
  invalidUrl: (v) => `${v.label}: digite um endereço como https://example.com.`,
  invalidDate: (v) => `${v.label}: digite uma data como 2026-11-22.`,
  tooShort: (v) => `${v.label}: digite pelo menos ${n(v.min, "# caractere", "# caracteres")}.`,
  tooLong: (v) => `${v.label}: digite no máximo ${n(v.max, "# caractere", "# caracteres")}.`,
  patternMismatch: (v) => `${v.label}: digite no formato pedido.`,
  unknownField: (v) => `${v.name}: este formulário não tem esse campo.`,
  fieldsNeedFixing: (v) => n(v.count, "Um campo precisa ser corrigido.", "# campos precisam ser corrigidos."),

  formNotFound: () => "Este formulário não existe.",
  formInactive: () => "Este formulário não está aceitando envios no momento.",
  originNotAllowed: () => "Este formulário não aceita envios deste site.",
  rateLimited: (v) => `Envios demais do seu endereço; tente novamente em ${n(v.seconds, "# segundo", "# segundos")}.`,
  captchaFailed: () => "O captcha não foi resolvido ou a solução expirou. Deixe o captcha terminar e envie o formulário novamente.",
  emptySubmission: () => "O envio não tem campos.",
  invalidRedirect: () => "A página do formulário redireciona para um endereço que não pode usar.",
  payloadTooLarge: () => "O envio é grande demais.",
  filesNotAccepted: () => "Este formulário não aceita arquivos.",
  notSent: () => "Não foi possível ler o envio. Tente novamente.",
  serverError: () => "Algo deu errado do nosso lado. Tente novamente em instantes.",

  thanksTitle: () => "Obrigado",
  thanksHeading: () => "Obrigado!",
  thanksText: () => "Recebemos o seu envio.",
  thanksMessage: () => "Obrigado! Recebemos o seu envio.",
  errorTitle: () => "Envio não realizado",
  errorHeading: () => "O seu envio não foi realizado",
  errorStatus: (v) => `Erro ${v.status}`,
  goBack: () => "Voltar",

  send: () => "Enviar",
  sending: () => "Enviando…",
  requiredMark: () => "obrigatório",
  chooseOne: () => "Escolha…",
  honeypot: () => "Deixe este campo vazio",
  networkError: () => "Não foi possível enviar o formulário. Verifique a sua conexão e tente novamente.",
  errorSummary: (v) => n(v.count, "Um campo precisa ser corrigido:", "# campos precisam ser corrigidos:"),
  pageDisabled: () => "Este formulário não tem página.",
  captchaLabel: () => "Não sou um robô",
  captchaVerifying: () => "Verificando…",
  captchaVerified: () => "Verificado",
  captchaError: () => "A verificação falhou. Tente novamente mais tarde.",
  captchaExpired: () => "A verificação expirou. Tente novamente.",
  captchaWait: () => "Verificando… aguarde.",

  confirmByLink: () => "Confirme o seu endereço abrindo este link:",

  confirmedTitle: () => "Confirmado",
  confirmedText: () => "Obrigado: o seu endereço está confirmado. Pode fechar esta página.",
  alreadyConfirmedTitle: () => "Já confirmado",
  alreadyConfirmedText: () => "Este endereço já tinha sido confirmado. Não há mais nada a fazer.",
  linkExpiredTitle: () => "Link expirado",
  linkExpiredText: () => "Este link de confirmação expirou, por isso nada foi confirmado. Se ainda quiser, envie o formulário novamente.",
  linkInvalidTitle: () => "Link inválido",
  linkInvalidText: () => "Este link de confirmação não é válido, por isso nada foi confirmado. Verifique se copiou o link completo do email.",
};
