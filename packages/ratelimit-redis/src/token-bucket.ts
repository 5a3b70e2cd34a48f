// The token bucket as one Lua script, so that refilling, taking and storing a key's bucket is a single
// atomic step on the Redis server however many processes ask at once. Time is the server's own (TIME),
// so machines whose clocks disagree still share one refill rate. The math is LocalRateLimiter's.

/**
 * KEYS[1]: the bucket. ARGV: tokens per second, capacity.
 * Returns { 1 if a token was taken else 0, tokens left (as text: Lua numbers become integers in a
 * reply), the server's time in ms }. A bucket expires once it would be full again: it then says
 * nothing a new one would not.
 */
export const TOKEN_BUCKET_SCRIPT = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(bucket[1])
local at = tonumber(bucket[2])
if tokens == nil or at == nil then
  tokens = burst
else
  tokens = math.min(burst, tokens + math.max(0, now - at) / 1000 * rate)
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
return { allowed, tostring(tokens), now }
`;
