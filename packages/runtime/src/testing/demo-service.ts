// A minimal service for the runService process tests: reports what happens on stdout.
import { baseConfigSchema } from '../config.js';
import { envBool } from '../env-fields.js';
import { runService } from '../service.js';

const schema = baseConfigSchema.extend({
  DEMO_FAIL_START: envBool(false),
  DEMO_HANG_STOP: envBool(false),
});

await runService({
  name: 'demo',
  configSchema: schema,
  async start({ config, setReady, httpPort }) {
    if (config.DEMO_FAIL_START) throw new Error('cannot reach the bus');
    setReady(true);
    process.stdout.write(`READY ${httpPort}\n`);
    return async () => {
      process.stdout.write('STOPPING\n');
      if (config.DEMO_HANG_STOP) await new Promise(() => undefined);
      process.stdout.write('STOPPED\n');
    };
  },
});
