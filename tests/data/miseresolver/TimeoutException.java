package org.cgsuite.core.misere.solver;

/** Thrown when the solving thread is interrupted. */
public class TimeoutException extends RuntimeException {}
