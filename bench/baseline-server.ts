/**
 * The bench baseline: a raw uWebSockets.js hello world, the fastest this machine can answer HTTP
 * with the same server library Baton uses. Prints `listening <port>` once bound to 127.0.0.1.
 */
import uWS from 'uWebSockets.js';

const app = uWS.App().any('/*', (res) => {
  res.end('Hello World!');
});
app.listen('127.0.0.1', Number(process.env.BASELINE_PORT ?? 0), (socket) => {
  if (socket === false) {
    console.error('baseline: could not listen');
    process.exit(1);
  }
  console.log(`listening ${uWS.us_socket_local_port(socket)}`);
});
process.on('SIGTERM', () => process.exit(0));
