// What the sign-up and change-password forms ask of a new password before sending it, in the
// API's own words: PUT /change-password requires at least 8 characters and a password other than
// the current one, and the page asks the same at sign-up, although POST /create-account takes any
// password unless its operator sets a minimum (then the API's message is shown). The API checks
// again and has the last word; these checks spare a request and say up front what is expected.
// Signing in checks nothing: an account may have a shorter password from before.

/** The fewest characters a new password may have. */
export const MIN_PASSWORD_LENGTH = 8

export const PASSWORD_HINT = `At least ${MIN_PASSWORD_LENGTH} characters.`

/**
 * Characters as a person counts them: code points, so an emoji is one. JSON Schema's minLength
 * counts the same way; an API counting UTF-16 units instead would never find fewer.
 */
const lengthOf = (text: string) => [...text].length

/**
 * Why the sign-up form does not send this password, or undefined. An empty one is left to the
 * API, which names the first missing field ("Full Name is required", …) in its order.
 */
export function signUpPasswordProblem(password: string): string | undefined {
  if (password && lengthOf(password) < MIN_PASSWORD_LENGTH)
    return `Password must be at least ${MIN_PASSWORD_LENGTH} characters`
  return undefined
}

/**
 * Why the change-password form does not send this new password, or undefined. Empty fields are
 * left to the API ("Current password is required", "New password is required").
 */
export function newPasswordProblem(current: string, next: string): string | undefined {
  if (!next) return undefined
  if (lengthOf(next) < MIN_PASSWORD_LENGTH) return `New password must be at least ${MIN_PASSWORD_LENGTH} characters`
  if (next === current) return 'New password must be different from the current password'
  return undefined
}
