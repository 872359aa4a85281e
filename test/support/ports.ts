// The tests' servers listen as the dev tools do.
export { closeNow, freePort, listenOnLoopback } from '../../dev/ports'
