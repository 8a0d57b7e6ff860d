/** The feed simulator service: synthetic and file-replay feeds into a tickerplant, driven over REST. */
package io.jtick.feedsim;
