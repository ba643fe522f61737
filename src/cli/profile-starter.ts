/** The commented starter file `airtime-harness profile init` writes: our spec, every section explained. */
export const PROFILE_STARTER = `# yaml-language-server: $schema=https://unpkg.com/airtime-harness/spec/provider-profile.schema.json
#
# A provider profile: every dimension the airtime interface leaves open, for
# one provider. Fill in what the provider's documentation says and delete
# the rest: a section left out means our spec's behaviour, and under
# --profile interface "not judged" where the interface is silent.
# Then: airtime-harness profile check THIS-FILE --target URL --token TOKEN
profile: 1
name: My provider

bodies: # RFC 6901 JSON pointers: where each body keeps each field
  order: # the send-airtime answer (HTTP 200); §2.3: its status is a number
    id: /id
    reference: /reference
    status: /status
    message: /message
  lookup: # GET /v1/airtime/{reference}
    id: /id
    reference: /reference
    status: /status
    amount: /amount
    # passthrough: # our spec's other members this body keeps, each at its pointer; the rest are left out
    #   message: /message
    #   service: /service
    #   account: /account
    #   currency: /currency
    #   shortcode: /shortcode
    #   createdAt: /createdAt
    #   updatedAt: /updatedAt
    #   history: /history # written in this profile's statuses
  webhook:
    id: /id
    reference: /reference
    status: /status
    amount: /amount
    # passthrough:
    #   message: /message
    #   final: /final
    #   service: /service
    #   account: /account
    #   balance: /balance
    #   currency: /currency
    #   shortcode: /shortcode
    #   timestamp: /timestamp
  balance: # GET /v1/balance
    amount: /amount
    # passthrough: { status: /status, currency: /currency, shortcode: /shortcode, wallets: /wallets }
  error: # any 4xx body; the 409 code idempotency_payload_mismatch is read here
    code: /code
    message: /detail
    # passthrough: { type: /type, title: /title, status: /status, instance: /instance, errors: /errors }

money: number # number (10) or string ("10.00")

statuses:
  values: code # code or word: how the lookup and the webhook write a status
  table: # class: pending | success | failed | reversed (failed and reversed refund)
    - { code: 0, word: PENDING, class: pending, message: Pending }
    - { code: 20, word: SUCCESS, class: success, message: Success }
    - { code: 2, word: FAILED, class: failed, message: Failed }
    - { code: 8, word: REVERSED, class: reversed, message: Reversed }
  transitions: # legal moves, by class, code or word
    - [pending, success]
    - [pending, failed]
    - [success, reversed]

http: # §7: the HTTP status of each error, where known (one left out is not judged)
  invalidInput: 400
  unauthorized: 401
  insufficientBalance: 402 # 200 means: a failed order without an id
  notFound: 404
  wrongMethod: 405

# errorCodes: # the provider's codes, judged where given
#   invalidInput: INVALID_REQUEST
#   unauthorized: UNAUTHORIZED

webhooks:
  event: { pointer: /type, values: [airtime.status] } # which deliveries are order-status events
  deliveryId: { header: webhook-id } # or { pointer: /deliveryId }
  signing: { scheme: standard-webhooks } # or none, or:
  # signing: { scheme: hmac, header: X-Signature, hash: sha256, encoding: hex, prefix: "sha256=",
  #            signed: timestamp.body, timestampHeader: X-Timestamp }
  # the secret is given with --webhook-secret, never in this file

# domain: # what the provider accepts: generated orders stay inside it
#   amount: { min: 10, max: 5000, decimals: 0 }
#   reference: { pattern: "^[A-Za-z0-9-]{6,24}$", maxLength: 24 }
#   accounts: [local, international] # local, international, e164, short
#   services: [safaricom, airtel, telkom]
#   currency: KES

# rateLimit: { requestsPerSecond: 20 } # a 429 is waited out, never a failure under interface
`;
