/** What a controller logs through: pino's call shape, so a service passes its pino logger as is. */
export interface ControllerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}
