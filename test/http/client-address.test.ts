import t from 'tap'
import { forwardedClient } from '../../src/http/client-address.js'

t.test('X-Forwarded-For is read from the right, as many entries as there are trusted proxies', async (t) => {
  t.equal(forwardedClient('10.0.0.1', '203.0.113.9', 0), '10.0.0.1', 'no proxy trusted: the socket, whatever the header says')
  t.equal(forwardedClient('10.0.0.1', undefined, 1), '10.0.0.1', 'no header: the socket')
  t.equal(forwardedClient('10.0.0.1', '203.0.113.9', 1), '203.0.113.9')
  t.equal(forwardedClient('10.0.0.1', '1.1.1.1,  203.0.113.9 ', 1), '203.0.113.9', 'what the client wrote to the left is not believed')
  t.equal(forwardedClient('10.0.0.1', '1.1.1.1, 203.0.113.9, 10.0.0.7', 2), '203.0.113.9', 'two proxies: the second from the right')
  t.equal(forwardedClient('10.0.0.1', '203.0.113.9', 2), '10.0.0.1', 'fewer entries than proxies: the socket')
  t.equal(forwardedClient('10.0.0.1', '1.1.1.1, ', 1), '10.0.0.1', 'an empty entry: the socket')
  t.equal(forwardedClient('10.0.0.1', '2001:DB8::1', 1), '2001:db8::1', 'one spelling per address')
})
