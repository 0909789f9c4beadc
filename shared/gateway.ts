/**
 * The gateway's clients (issue 40): who may use the one address of the fleet. A client has
 * its own name and password, never a member's, and may be held to source addresses. They
 * are kept on the workstation like proxy credentials (`gateway-clients.json`, 0600), and a
 * client's name is the first part of every user name it sends (shared/gateway-user.ts).
 */
import { z } from 'zod';
import { gatewayClientNameProblem } from './gateway-user.js';
import { isCidr } from './net.js';

/** Client allow-lists hold at most this many entries. */
export const GATEWAY_ALLOW_MAX = 64;

/** A password a client sends in Basic auth: 12-128 characters, none that a proxy URL would have to escape. */
const PASSWORD = /^[A-Za-z0-9._~-]{12,128}$/;

export const GatewayClientNameSchema = z.string().superRefine((name, ctx) => {
  const problem = gatewayClientNameProblem(name);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

export const GatewayClientSchema = z.strictObject({
  name: GatewayClientNameSchema,
  password: z.string().regex(PASSWORD, 'must be 12-128 characters of letters, digits, ".", "_", "~" and "-"'),
  /** Source addresses or CIDR blocks the client may connect from; absent = any that reaches the listener. */
  allow: z
    .array(z.string().refine(isCidr, 'must be an IP address or CIDR block'))
    .min(1)
    .max(GATEWAY_ALLOW_MAX)
    .optional(),
});
export type GatewayClient = z.infer<typeof GatewayClientSchema>;

/** A client as lists show it: everything but the password. */
export type GatewayClientView = Omit<GatewayClient, 'password'>;
